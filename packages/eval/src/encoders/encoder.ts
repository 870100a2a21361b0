/** The dense-encoder interface lives in @dv/core (one definition for every package). */
export type { Encoder } from '@dv/core';
