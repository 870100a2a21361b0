/**
 * Options of the mini world with their defaults (the `mini` profile's data). Sizes follow
 * docs/architecture.md: 1,000-2,000 test topics for stable paired comparisons; the prototype trained on
 * 4,000 lemmas / 8k examples, so every remaining lemma goes to training by default.
 */
import { DEFAULT_SEED } from '@dv/core';
import { z } from 'zod';
import { MINI_LEVERS } from './constraint.js';
import { SEED_STYLES } from './instruction-templates.js';

export const MiniWorldOptions = z.object({
  /** Seed of every random choice (splits, positives, levers, templates). Same seed, same bytes. */
  seed: z.number().int().nonnegative().default(DEFAULT_SEED),
  /** Lemmas held out for the FollowIR-form and InfoSearch-style benchmarks. */
  testLemmas: z.number().int().min(1).default(1500),
  /** Lemmas for the dev seed set. */
  devLemmas: z.number().int().min(0).default(500),
  /** Lemmas for the train seed set; null = all remaining ambiguous lemmas (~8.8k). */
  trainLemmas: z.number().int().min(0).nullable().default(null),
  /**
   * Keep splits disjoint in documents too: skip dev/train lemmas that share a sense (synset)
   * with a held-out lemma (~25% of the candidates), so no test entry is a training positive.
   */
  disjointSenses: z.boolean().default(true),
  /** Seed examples per train/dev lemma (each draws its own positive, lever and style). */
  seedsPerLemma: z.number().int().min(1).default(1),
  /** Share of seed instructions whose positive is the lemma's dominant sense (MS MARCO-like). */
  dominantShare: z.number().min(0).max(1).default(0.8),
  /** Instruction negatives per seed (other senses of the lemma violating the instruction). */
  instructionNegatives: z.number().int().min(0).default(3),
  /** Mined hard negatives per seed and per general example. */
  hardNegatives: z.number().int().min(0).default(30),
  /**
   * General (no-instruction) examples; lemmas outside dev/test whose senses are not held out.
   * 4,000 = half of the mini profile's 8k budget, as the All-* mixes hold ~half general data.
   */
  generalExamples: z.number().int().min(0).default(4000),
  /** Candidates per FollowIR-form topic: all senses of the lemma plus mined distractors. */
  candidates: z.number().int().min(2).default(100),
  /** Topics per InfoSearch-style lever (fewer when fewer test lemmas support the lever). */
  infosearchTopicsPerLever: z.number().int().min(1).default(300),
  /** Distractors added to an InfoSearch-style corpus per topic. */
  infosearchDistractors: z.number().int().min(0).default(20),
  /** Levers seed instructions may use. */
  levers: z
    .array(z.enum(MINI_LEVERS))
    .min(1)
    .default([...MINI_LEVERS]),
  /** Writing styles of seed instructions. */
  styles: z
    .array(z.enum(SEED_STYLES as unknown as [string, ...string[]]))
    .min(1)
    .default([...SEED_STYLES]),
});
export type MiniWorldOptions = z.infer<typeof MiniWorldOptions>;
export type MiniWorldOptionsInput = z.input<typeof MiniWorldOptions>;
