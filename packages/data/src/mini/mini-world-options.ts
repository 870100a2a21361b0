/**
 * The mini world's options: the schema is @dv/core's `MiniWorldOptions` (the `world` slice of
 * the run config), re-exported here for the builder and its users.
 */

import { MiniWorldOptions } from '@dv/core';
import type { z } from 'zod';

export { MiniWorldOptions };
/** What a caller may pass (defaults filled in by the schema). */
export type MiniWorldOptionsInput = z.input<typeof MiniWorldOptions>;
