/**
 * Training examples and dual-view examples.
 *
 * A training example is one query view with its labelled documents: positives (relation +1)
 * and labelled negatives (relation -1, instruction negatives first, then hard negatives).
 * The `view` says where it came from: the seed's original instruction, the synthesized
 * complement (polarity reversed), or general no-instruction data. Both views of a pair share
 * `pairId`, which the batch sampler uses to put them in one batch (STYLE.md, practice 7).
 */
import { z } from 'zod';
import { Passage } from './passage.js';

export const ExampleView = z.enum(['original', 'complement', 'general']);
export type ExampleView = z.infer<typeof ExampleView>;

export const TrainingExample = z.object({
  id: z.string().min(1),
  query: z.string().min(1),
  /** null for general (no-instruction) data. */
  instruction: z.string().nullable(),
  positives: z.array(Passage).min(1, 'a training example needs at least one positive'),
  negatives: z.array(Passage).default([]),
  view: ExampleView,
  pairId: z.string().optional(),
  seedId: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type TrainingExample = z.infer<typeof TrainingExample>;

/**
 * The complementary view of a seed: (q, I') with positive = D- and negatives = D+ first, then
 * the remaining hard negatives. `originalId` links it to the original view's example id.
 */
export const DualViewExample = TrainingExample.extend({
  view: z.literal('complement'),
  instruction: z.string().min(1),
  originalId: z.string().min(1),
  synthesisKey: z.string().min(1),
});
export type DualViewExample = z.infer<typeof DualViewExample>;
