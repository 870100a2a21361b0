/**
 * The mini world's options: the schema is @dv/core's `MiniWorldOptions` (the `world` slice of
 * the run config), re-exported here for the builder and its users.
 */
export { MiniWorldOptions, type MiniWorldOptionsInput } from '@dv/core';
