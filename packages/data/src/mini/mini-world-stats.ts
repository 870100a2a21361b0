/**
 * The mini world's stats report: counts per split and lever, instruction length distributions,
 * dominance shares, split hygiene (lemmas in two splits: must be 0) and a few examples.
 * Deterministic (no timings), so it is part of the byte-identical output.
 */
import type { InstructedSet, SeedExample, TrainingExample } from '@dv/core';
import { countBy, type Distribution, distribution, round, wordsIn } from '../internal/summary.js';
import type { MiniLever } from './constraint.js';
import type { LemmaSplits } from './lemma-splits.js';
import type { MiniCorpus } from './mini-corpus.js';
import type { MiniWorldOptions } from './mini-world-options.js';
import {
  type BenchmarkQuality,
  benchmarkQuality,
  infosearchLeakage,
  type Leakage,
  type WordingQuality,
  wordingQuality,
} from './mini-world-quality.js';

/** The quality figures (mini-world-quality.ts) of the build; BM25 scores come from the CLI. */
export interface MiniWorldQualityFigures {
  followir: BenchmarkQuality & { wording: WordingQuality };
  followirSeen: BenchmarkQuality & { wording: WordingQuality };
  infosearch: Record<string, Leakage & { topics: number }>;
}

export interface SeedSetStats {
  examples: number;
  byLever: Record<string, number>;
  byStyle: Record<string, number>;
  dominantPositiveShare: number;
  instructionNegatives: Distribution;
  hardNegatives: Distribution;
  instructionWords: Distribution;
}

export interface MiniWorldStats {
  wordnet: string;
  seed: number;
  options: MiniWorldOptions;
  corpus: {
    documents: number;
    withExample: number;
    withTopic: number;
    withRegion: number;
    withUsage: number;
    wordCount: Distribution;
    byCategory: Record<string, number>;
  };
  splits: {
    /** Qualifying lemmas (senses in >= 2 categories) the splits were drawn from. */
    ambiguousLemmas: number;
    train: number;
    dev: number;
    test: number;
    /** Lemmas found in more than one split (always 0). */
    lemmasInTwoSplits: number;
    /** Train lemmas with a sense (synset) that is also a sense of a dev/test lemma (0 with disjointSenses). */
    trainLemmasSharingASynsetWithHeldOut: number;
  };
  seeds: { train: SeedSetStats; dev: SeedSetStats };
  general: { examples: number; hardNegatives: Distribution };
  followir: {
    topics: number;
    corpus: number;
    candidates: Distribution;
    relevantOg: Distribution;
    relevantChanged: Distribution;
    changedDocs: number;
    byChangedLever: Record<string, number>;
    dominantRemovedShare: number;
    ogInstructionWords: Distribution;
    changedInstructionWords: Distribution;
  };
  infosearch: Record<
    string,
    {
      topics: number;
      corpus: number;
      relevantInstructed: Distribution;
      relevantReversed: Distribution;
      instructionWords: Distribution;
    }
  >;
  quality: MiniWorldQualityFigures;
  examples: { seed?: unknown; followir?: unknown; infosearch?: unknown };
}

function seedStats(list: SeedExample[]): SeedSetStats {
  return {
    examples: list.length,
    byLever: countBy(list, (s) => s.instruction.lever ?? 'other'),
    byStyle: countBy(list, (s) => s.instruction.style ?? 'other'),
    dominantPositiveShare: round(
      list.filter((s) => (s.metadata as { dominantPositive?: boolean }).dominantPositive).length /
        Math.max(1, list.length),
    ),
    instructionNegatives: distribution(list.map((s) => s.instructionNegatives.length)),
    hardNegatives: distribution(list.map((s) => s.hardNegatives.length)),
    instructionWords: distribution(list.map((s) => wordsIn(s.instruction.text))),
  };
}

const relevantCount = (m: Map<string, number> | undefined) =>
  [...(m ?? new Map()).values()].filter((g) => g > 0).length;

export function miniWorldStats(input: {
  options: MiniWorldOptions;
  wordnetVersion: string;
  /** Size of the pool the splits were drawn from. */
  ambiguousLemmas: number;
  corpus: MiniCorpus;
  splits: LemmaSplits;
  seedsTrain: SeedExample[];
  seedsDev: SeedExample[];
  general: TrainingExample[];
  followir: InstructedSet;
  /** The seen-wording split (same topics, train-pool wording). */
  followirSeen: InstructedSet;
  infosearch: Map<MiniLever, InstructedSet>;
}): MiniWorldStats {
  const { corpus, splits, followir } = input;
  const meta = corpus.docs.map((d) => d.metadata as Record<string, unknown>);
  const where = new Map<string, number>();
  for (const l of [...splits.train, ...splits.dev, ...splits.test]) where.set(l, (where.get(l) ?? 0) + 1);
  const held = new Set([...splits.dev, ...splits.test].flatMap((l) => corpus.wn.senses.get(l) ?? []));
  const fq = followir.queries;
  const changedDocs = fq.reduce((n, q) => n + ((q.metadata?.removedDocids as string[]) ?? []).length, 0);
  const infosearch: MiniWorldStats['infosearch'] = {};
  for (const [lever, set] of input.infosearch) {
    infosearch[lever] = {
      topics: set.queries.length,
      corpus: set.corpus.length,
      relevantInstructed: distribution(set.queries.map((q) => relevantCount(set.qrels.changed?.get(q.id)))),
      relevantReversed: distribution(set.queries.map((q) => relevantCount(set.qrels.reversed?.get(q.id)))),
      instructionWords: distribution(set.queries.map((q) => wordsIn(q.instructions.changed ?? ''))),
    };
  }
  const exampleSeed = input.seedsTrain.find((s) => s.instructionNegatives.length > 0);
  const exampleTopic = fq[0];
  const firstInfo = [...input.infosearch.values()][0]?.queries[0];
  return {
    wordnet: input.wordnetVersion,
    seed: input.options.seed,
    options: input.options,
    corpus: {
      documents: corpus.docs.length,
      withExample: meta.filter((m) => m.hasExample).length,
      withTopic: meta.filter((m) => (m.topics as string[]).length > 0).length,
      withRegion: meta.filter((m) => (m.regions as string[]).length > 0).length,
      withUsage: meta.filter((m) => (m.usages as string[]).length > 0).length,
      wordCount: distribution(meta.map((m) => m.wordCount as number)),
      byCategory: countBy(meta, (m) => m.category as string),
    },
    splits: {
      ambiguousLemmas: input.ambiguousLemmas,
      train: splits.train.length,
      dev: splits.dev.length,
      test: splits.test.length,
      lemmasInTwoSplits: [...where.values()].filter((n) => n > 1).length,
      trainLemmasSharingASynsetWithHeldOut: splits.train.filter((l) =>
        (corpus.wn.senses.get(l) ?? []).some((id) => held.has(id)),
      ).length,
    },
    seeds: { train: seedStats(input.seedsTrain), dev: seedStats(input.seedsDev) },
    general: {
      examples: input.general.length,
      hardNegatives: distribution(input.general.map((g) => g.negatives.length)),
    },
    followir: {
      topics: fq.length,
      corpus: followir.corpus.length,
      candidates: distribution([...(followir.candidates ?? new Map()).values()].map((c) => c.length)),
      relevantOg: distribution(fq.map((q) => relevantCount(followir.qrels.og?.get(q.id)))),
      relevantChanged: distribution(fq.map((q) => relevantCount(followir.qrels.changed?.get(q.id)))),
      changedDocs,
      byChangedLever: countBy(fq, (q) => String(q.metadata?.changedLever)),
      dominantRemovedShare: round(
        fq.filter((q) => q.metadata?.dominantRemoved).length / Math.max(1, fq.length),
      ),
      ogInstructionWords: distribution(fq.map((q) => wordsIn(q.instructions.og ?? ''))),
      changedInstructionWords: distribution(fq.map((q) => wordsIn(q.instructions.changed ?? ''))),
    },
    infosearch,
    quality: {
      followir: { ...benchmarkQuality(followir), wording: wordingQuality(followir, input.seedsTrain) },
      followirSeen: {
        ...benchmarkQuality(input.followirSeen),
        wording: wordingQuality(input.followirSeen, input.seedsTrain),
      },
      infosearch: Object.fromEntries([...input.infosearch].map(([l, set]) => [l, infosearchLeakage(set)])),
    },
    examples: {
      seed: exampleSeed && {
        query: exampleSeed.query,
        instruction: exampleSeed.instruction,
        positive: `${exampleSeed.positives[0]!.title}: ${exampleSeed.positives[0]!.text}`,
        instructionNegative: `${exampleSeed.instructionNegatives[0]!.title}: ${exampleSeed.instructionNegatives[0]!.text}`,
        hardNegative:
          exampleSeed.hardNegatives[0] &&
          `${exampleSeed.hardNegatives[0].title}: ${exampleSeed.hardNegatives[0].text}`,
      },
      followir: exampleTopic && {
        query: exampleTopic.query,
        og: exampleTopic.instructions.og,
        changed: exampleTopic.instructions.changed,
        removed: exampleTopic.metadata?.removedDocids,
      },
      infosearch: firstInfo && {
        query: firstInfo.query,
        instructed: firstInfo.instructions.changed,
        reversed: firstInfo.instructions.reversed,
      },
    },
  };
}

const fmtDist = (d: Distribution) =>
  `${d.min} / ${d.p25} / ${d.median} / ${d.p75} / ${d.max} (mean ${d.mean})`;

export function renderStatsMarkdown(s: MiniWorldStats): string {
  const lines: string[] = [];
  lines.push('# Mini world: stats', '');
  lines.push(`WordNet: ${s.wordnet}; seed ${s.seed}.`, '');
  lines.push('## Corpus', '');
  lines.push(
    `${s.corpus.documents} entries; ${s.corpus.withExample} with a usage example, ${s.corpus.withTopic} with a topic domain, ${s.corpus.withRegion} with a region domain, ${s.corpus.withUsage} with a usage domain.`,
  );
  lines.push(`Words per entry (min / p25 / median / p75 / max): ${fmtDist(s.corpus.wordCount)}.`, '');
  lines.push('## Splits (lemmas)', '');
  lines.push('| split | lemmas | seed examples |', '|---|---|---|');
  lines.push(`| train | ${s.splits.train} | ${s.seeds.train.examples} |`);
  lines.push(`| dev | ${s.splits.dev} | ${s.seeds.dev.examples} |`);
  lines.push(`| test | ${s.splits.test} | ${s.followir.topics} FollowIR-form topics |`, '');
  lines.push(
    `Qualifying lemmas: ${s.splits.ambiguousLemmas}. Lemmas in two splits: **${s.splits.lemmasInTwoSplits}**. Train lemmas sharing a synset with a dev/test lemma: ${s.splits.trainLemmasSharingASynsetWithHeldOut}.`,
  );
  lines.push(`General (no-instruction) examples: ${s.general.examples}.`, '');
  lines.push('## Seed examples per lever', '');
  const levers = [
    ...new Set([
      ...Object.keys(s.seeds.train.byLever),
      ...Object.keys(s.seeds.dev.byLever),
      ...Object.keys(s.infosearch),
    ]),
  ].sort();
  lines.push(
    '| lever | train seeds | dev seeds | InfoSearch-style topics | FollowIR changed by |',
    '|---|---|---|---|---|',
  );
  for (const l of levers) {
    lines.push(
      `| ${l} | ${s.seeds.train.byLever[l] ?? 0} | ${s.seeds.dev.byLever[l] ?? 0} | ${s.infosearch[l]?.topics ?? 0} | ${s.followir.byChangedLever[l] ?? 0} |`,
    );
  }
  lines.push('');
  lines.push(
    `Styles (train): ${Object.entries(s.seeds.train.byStyle)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  );
  lines.push(
    `Share of train seeds whose positive is the dominant sense: ${s.seeds.train.dominantPositiveShare}.`,
  );
  lines.push(
    `Instruction words (train seeds, min / p25 / median / p75 / max): ${fmtDist(s.seeds.train.instructionWords)}.`,
    '',
  );
  lines.push('## FollowIR-form benchmark', '');
  lines.push(
    `${s.followir.topics} topics, ${s.followir.corpus} documents, candidates per topic ${fmtDist(s.followir.candidates)}.`,
  );
  lines.push(
    `Relevant per topic: og ${fmtDist(s.followir.relevantOg)}; changed ${fmtDist(s.followir.relevantChanged)}.`,
  );
  lines.push(
    `Documents made non-relevant by the changed instruction: ${s.followir.changedDocs}; topics where the dominant sense is removed: ${s.followir.dominantRemovedShare}.`,
  );
  lines.push(
    `Instruction words: og ${fmtDist(s.followir.ogInstructionWords)}; changed ${fmtDist(s.followir.changedInstructionWords)}.`,
    '',
  );
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  lines.push('## Quality (does the benchmark measure instruction following?)', '');
  lines.push('| figure | held-out wording | seen wording |', '|---|---|---|');
  const q = s.quality.followir;
  const qs = s.quality.followirSeen;
  const row = (name: string, f: (b: BenchmarkQuality & { wording: WordingQuality }) => string) =>
    lines.push(`| ${name} | ${f(q)} | ${f(qs)} |`);
  row('topics', (b) => String(b.topics));
  row('largest change-lever share', (b) => pct(b.maxLeverShare));
  row('vacuous og (every judged sense relevant)', (b) => pct(b.vacuousOgShare));
  row('change words in a removed / a kept doc', (b) => `${pct(b.leakage.removed)} / ${pct(b.leakage.kept)}`);
  row('narrowing violations / self-contradictions', (b) => `${b.narrowingViolations} / ${b.contradictions}`);
  row(
    'change frames (of them in train seeds)',
    (b) => `${b.wording.benchmarkFrames} (${b.wording.benchmarkFramesInTrainSeeds})`,
  );
  lines.push('');
  lines.push(
    `Change levers: ${Object.entries(q.leverShares)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}. BM25 p-MRR and Score: \`dv data stats DIR\`.`,
    '',
  );
  lines.push('## Examples', '', '```json', JSON.stringify(s.examples, null, 2), '```', '');
  return `${lines.join('\n')}\n`;
}
