/**
 * A seed instance for polarity reversal: query q, instruction I, positive D+, instruction
 * negatives D- (on topic, excluded by I) and mined hard negatives.
 *
 * Shape follows Promptriever's `samaya-ai/msmarco-w-instructions` rows so they map losslessly:
 * `query_id -> id`, `only_query -> query`, `only_instruction -> instruction.text`,
 * `query -> combinedQuery`, `has_instruction -> hasInstruction`,
 * `positive_passages -> positives`, `new_negatives -> instructionNegatives`
 * (with `explanation`, `followir_score`, `joint_id`), `negative_passages -> hardNegatives`.
 * D+ is `positives[0]`.
 */
import { z } from 'zod';
import { Passage } from './passage.js';
import { Instruction } from './query.js';

export const InstructionNegative = Passage.extend({
  /** Why the passage violates the instruction (Promptriever's `explanation`). */
  explanation: z.string().optional(),
  followirScore: z.number().optional(),
  jointId: z.string().optional(),
});
export type InstructionNegative = z.infer<typeof InstructionNegative>;

export const SeedExample = z.object({
  id: z.string().min(1),
  query: z.string().min(1, 'query must not be empty'),
  instruction: Instruction,
  positives: z.array(Passage).min(1, 'a seed example needs at least one positive'),
  instructionNegatives: z.array(InstructionNegative).default([]),
  hardNegatives: z.array(Passage).default([]),
  /** Promptriever's `query` field: query and instruction as the source joined them. */
  combinedQuery: z.string().optional(),
  hasInstruction: z.boolean().default(true),
  source: z
    .object({ dataset: z.string(), revision: z.string().optional(), row: z.number().int().optional() })
    .optional(),
  split: z.enum(['train', 'dev', 'test']).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type SeedExample = z.infer<typeof SeedExample>;
export type SeedExampleInput = z.input<typeof SeedExample>;
