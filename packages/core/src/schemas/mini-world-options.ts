/**
 * Options of the mini world (@dv/data `buildMiniWorld`) with their defaults: the `world` slice
 * of a run config. The schema lives here, in the bottom package, so the run config can hold it;
 * @dv/data imports it. Sizes follow docs/architecture.md: 1,000-2,000 test topics for stable
 * paired comparisons; the prototype trained on 4,000 lemmas / 8k examples, so every remaining
 * lemma goes to training by default. The reproduce overlays (presets.ts) set smaller sizes.
 */
import { z } from 'zod';
import { DEFAULT_SEED } from '../rng.js';
import { InstructionStyle } from './query.js';

/** What a mini-world instruction may constrain (@dv/data `constraint.ts` defines each). */
export const MINI_LEVERS = [
  'category',
  'hypernym',
  'topic',
  'region',
  'usage',
  'keyword',
  'length',
  'format',
] as const;

/**
 * Writing styles of mini-world seed instructions: @dv/data's template styles plus `exclusion`
 * and `narrative`: every InstructionStyle but `other` (@dv/data `instruction-templates.ts`
 * `SEED_STYLES`, checked equal in its test).
 */
export const MINI_SEED_STYLES = InstructionStyle.exclude(['other']).options;

export const MiniWorldOptions = z.object({
  seed: z
    .number()
    .int()
    .nonnegative()
    .default(DEFAULT_SEED)
    .describe(
      'Seed of every random choice of the mini world (splits, positives, levers, templates); same seed, same bytes',
    ),
  testLemmas: z
    .number()
    .int()
    .min(1)
    .default(1500)
    .describe('Lemmas held out for the FollowIR-form and InfoSearch-style benchmarks (one topic each)'),
  devLemmas: z.number().int().min(0).default(500).describe('Lemmas for the dev seed set (held-out pairs)'),
  trainLemmas: z
    .number()
    .int()
    .min(0)
    .nullable()
    .default(null)
    .describe('Lemmas for the train seed set; null = all remaining ambiguous lemmas (~8.8k)'),
  disjointSenses: z
    .boolean()
    .default(true)
    .describe(
      'Keep splits disjoint in documents too: skip dev/train lemmas sharing a sense with a held-out lemma (~25% of the candidates)',
    ),
  seedsPerLemma: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe('Seed examples per train/dev lemma (each draws its own positive, lever and style)'),
  dominantShare: z
    .number()
    .min(0)
    .max(1)
    .default(0.8)
    .describe("Share of seed instructions whose positive is the lemma's dominant sense (MS MARCO-like)"),
  instructionNegatives: z
    .number()
    .int()
    .min(0)
    .default(3)
    .describe('Instruction negatives per seed: other senses of the lemma that violate the instruction'),
  hardNegatives: z
    .number()
    .int()
    .min(0)
    .default(30)
    .describe(
      'Hard negatives MINED and written per seed and per general example when the world is built (data on disk); how many of them a training query uses is train.batch.hardNegatives',
    ),
  generalExamples: z
    .number()
    .int()
    .min(0)
    .default(4000)
    .describe(
      'General (no-instruction) examples from lemmas outside dev/test; 4,000 = half of an 8k budget, as All-* mixes hold ~half general data',
    ),
  candidates: z
    .number()
    .int()
    .min(2)
    .default(100)
    .describe('Candidates per FollowIR-form topic: all senses of the lemma plus mined distractors'),
  infosearchTopicsPerLever: z
    .number()
    .int()
    .min(1)
    .default(300)
    .describe('Topics per InfoSearch-style lever (fewer when fewer test lemmas support the lever)'),
  infosearchDistractors: z
    .number()
    .int()
    .min(0)
    .default(20)
    .describe('Distractors added to an InfoSearch-style corpus per topic'),
  levers: z
    .array(z.enum(MINI_LEVERS))
    .min(1)
    .default([...MINI_LEVERS])
    .describe('Levers seed instructions may use'),
  styles: z
    .array(z.enum(MINI_SEED_STYLES))
    .min(1)
    .default([...MINI_SEED_STYLES])
    .describe('Writing styles of seed instructions'),
});
export type MiniWorldOptions = z.infer<typeof MiniWorldOptions>;
export type MiniWorldOptionsInput = z.input<typeof MiniWorldOptions>;
