/**
 * Settings of the one query/document formatter (see `format.ts`). They are recorded in every
 * manifest because a changed joiner or prefix silently moves every number.
 */
import { z } from 'zod';

export const FormatterSettings = z.object({
  queryPrefix: z
    .string()
    .default('')
    .describe('Prepended to every formatted query, e.g. `query: ` for E5-style models'),
  documentPrefix: z.string().default('').describe('Prepended to every formatted document, e.g. `passage: `'),
  joiner: z
    .string()
    .default(' ')
    .describe('Between query and instruction (mteb joins `query + " " + instruction`)'),
  instructionFirst: z
    .boolean()
    .default(false)
    .describe('Put the instruction before the query instead of after it'),
  titleJoiner: z.string().default(' ').describe('Between title and text; an empty title adds nothing'),
});
export type FormatterSettings = z.infer<typeof FormatterSettings>;
export type FormatterSettingsInput = z.input<typeof FormatterSettings>;
