/**
 * Queries and instructions, kept apart until the shared formatter joins them.
 *
 * An instruction records the attribute it constrains (the "lever": category, region, keyword,
 * length...) and its writing style when known, so results can be broken down by lever.
 */
import { z } from 'zod';

export const InstructionLever = z.enum([
  'category',
  'hypernym',
  'domain',
  'topic',
  'region',
  'usage',
  'length',
  'keyword',
  'format',
  'timeframe',
  'audience',
  'source',
  'language',
  'style',
  'methodology',
  'exclusion',
  'other',
]);
export type InstructionLever = z.infer<typeof InstructionLever>;

export const InstructionStyle = z.enum([
  'plain',
  'persona',
  'background',
  'negation',
  'exclusion',
  'narrative',
  'other',
]);
export type InstructionStyle = z.infer<typeof InstructionStyle>;

export const Instruction = z.object({
  text: z.string(),
  lever: InstructionLever.optional(),
  style: InstructionStyle.optional(),
  /** Free-form description of the constraint, e.g. `category=noun.animal`. */
  constraint: z.string().optional(),
});
export type Instruction = z.infer<typeof Instruction>;

export const Query = z.object({
  id: z.string().min(1),
  text: z.string(),
  instruction: Instruction.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Query = z.infer<typeof Query>;
