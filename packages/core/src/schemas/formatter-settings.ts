/**
 * Settings of the one query/document formatter (see `format.ts`). They are recorded in every
 * manifest because a changed joiner or prefix silently moves every number.
 */
import { z } from 'zod';

export const FormatterSettings = z.object({
  /** Prepended to every formatted query, e.g. `query: ` for E5-style models. */
  queryPrefix: z.string().default(''),
  /** Prepended to every formatted document, e.g. `passage: `. */
  documentPrefix: z.string().default(''),
  /** Between query and instruction. mteb joins `query + " " + instruction`. */
  joiner: z.string().default(' '),
  /** Put the instruction before the query instead of after it. */
  instructionFirst: z.boolean().default(false),
  /** Between title and text; an empty title adds nothing. */
  titleJoiner: z.string().default(' '),
});
export type FormatterSettings = z.infer<typeof FormatterSettings>;
export type FormatterSettingsInput = z.input<typeof FormatterSettings>;
