/**
 * The quality figures of a built mini world, composed from three packages (none of which
 * depends on another for this): @dv/data's benchmark figures (lever shares, vacuous og,
 * leakage, wording), @dv/eval's BM25 (p-MRR and Score of the lexical baseline on the
 * FollowIR-form splits) and @dv/synth's offline reverser run over the seeds (lever shares,
 * distinctness, cue balance, text-only acceptance). `dv data stats DIR` prints them;
 * `dv data build-mini` passes `bm25Figures` to the builder so the manifest records them too.
 */
import type { InstructedSet, SeedExample } from '@dv/core';
import {
  benchmarkQuality,
  infosearchLeakage,
  loadMiniWorld,
  type MiniWorld,
  type MiniWorldBuilt,
  wordingQuality,
} from '@dv/data';
import { applyLexicalRule, Bm25Ranker, benchmarkProfiles, rankModes, taskEntry } from '@dv/eval';
import { type ComplementFigures, complementFigures } from '@dv/synth';

export interface Bm25Figures {
  /** p-MRR x100 (FollowIR reports it so). */
  pMrr: number;
  /** nDCG@5 x100 of the og run (the mini world's Score). */
  score: number;
  /** p-MRR x100 per change lever (query metadata `changeLever`). */
  pMrrByLever: Record<string, number>;
  /**
   * The word-matching rule on top of the same BM25 runs (@dv/eval baselines/lexical-rule.ts):
   * its p-MRR x100, and the topics where it scores exactly as BM25 (it neither helps nor hurts).
   */
  lexicalRule: { pMrr: number; neutralTopics: number; topics: number };
}

/** How close the word-matching rule must sit to BM25 for a benchmark it cannot win (p-MRR points). */
export const LEXICAL_RULE_BAND = 5;

const r1 = (x: number) => Math.round(x * 1000) / 10;

/** BM25 (k1 0.9, b 0.4, Lucene tokens) reranking the set's candidates under og and changed. */
export async function bm25Figures(set: InstructedSet): Promise<Bm25Figures> {
  const profile = benchmarkProfiles.followir;
  const runs = await rankModes(set, new Bm25Ranker(), { topK: profile.topK, modes: ['og', 'changed'] });
  const scored = profile.score(set, runs, { task: taskEntry('mini-followir') }); // the registry's Score measure
  const ruled = profile.score(set, applyLexicalRule(set, runs), { task: taskEntry('mini-followir') });
  const neutral = Object.keys(scored.perQuery).filter(
    (q) =>
      Math.abs((ruled.perQuery[q]?.['p-MRR'] ?? Number.NaN) - (scored.perQuery[q]?.['p-MRR'] ?? 0)) < 1e-12,
  ).length;
  const s = scored.scores;
  const sums: Record<string, { sum: number; n: number }> = {};
  for (const q of set.queries) {
    const v = scored.perQuery[q.id]?.['p-MRR'];
    if (v === undefined) continue;
    const lever = String(q.metadata?.changeLever ?? q.metadata?.changedLever ?? 'unknown');
    const e = sums[lever] ?? { sum: 0, n: 0 };
    sums[lever] = e;
    e.sum += v;
    e.n++;
  }
  const pMrrByLever = Object.fromEntries(
    Object.entries(sums)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, e]) => [k, r1(e.sum / e.n)]),
  );
  return {
    pMrr: r1(s['p-MRR']!),
    score: r1(s.score!),
    pMrrByLever,
    lexicalRule: {
      pMrr: r1(ruled.scores['p-MRR']!),
      neutralTopics: neutral,
      topics: Object.keys(scored.perQuery).length,
    },
  };
}

export interface MiniFigures {
  followir: ReturnType<typeof benchmarkQuality> & {
    bm25: Bm25Figures;
    wording: ReturnType<typeof wordingQuality>;
  };
  followirSeen?: ReturnType<typeof benchmarkQuality> & {
    bm25: Bm25Figures;
    wording: ReturnType<typeof wordingQuality>;
  };
  infosearch: Record<string, ReturnType<typeof infosearchLeakage>>;
  reverser: ComplementFigures;
}

async function all<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

/**
 * The figures a fresh build records in its manifest (`config.figures`) beside the data figures:
 * BM25 on both FollowIR-form splits and the offline reverser over the seeds.
 */
export async function buildFigures(built: MiniWorldBuilt): Promise<Record<string, unknown>> {
  return {
    bm25: {
      followir: await bm25Figures(built.followir),
      followirSeen: await bm25Figures(built.followirSeen),
    },
    reverser: await complementFigures([...built.seedsTrain, ...built.seedsDev]),
  };
}

export async function miniFigures(dir: string, world?: MiniWorld): Promise<MiniFigures> {
  const w = world ?? (await loadMiniWorld(dir));
  const train: SeedExample[] = await all(w.readSeeds('train'));
  const dev: SeedExample[] = await all(w.readSeeds('dev'));
  const bench = async (set: InstructedSet) => ({
    ...benchmarkQuality(set),
    bm25: await bm25Figures(set),
    wording: wordingQuality(set, train),
  });
  const followir = await bench(await w.loadFollowIR());
  const seen = w.loadFollowIRSeen ? await w.loadFollowIRSeen() : null;
  const infosearch: MiniFigures['infosearch'] = {};
  for (const lever of w.levers) infosearch[lever] = infosearchLeakage(await w.loadInfoSearch(lever));
  return {
    followir,
    ...(seen ? { followirSeen: await bench(seen) } : {}),
    infosearch,
    reverser: await complementFigures([...train, ...dev]),
  };
}

export interface Target {
  name: string;
  value: string;
  ok: boolean;
}

/** The targets of issue 11 ("Done when"), checked on a figures object. */
export function miniTargets(f: MiniFigures): Target[] {
  const b = f.followir;
  const r = f.reverser;
  const l = b.leakage;
  const t = (name: string, value: unknown, ok: boolean): Target => ({ name, value: String(value), ok });
  return [
    t('BM25 p-MRR in [-8, +3]', b.bm25.pMrr, b.bm25.pMrr >= -8 && b.bm25.pMrr <= 3),
    t('leakage removed vs kept within 2x', `${l.removed} vs ${l.kept}`, l.ratio !== null && l.ratio <= 2),
    t('vacuous og <= 10%', b.vacuousOgShare, b.vacuousOgShare <= 0.1),
    t('og relevant a strict subset of judged >= 90%', b.selectiveOgShare, b.selectiveOgShare >= 0.9),
    t('no change lever above 40%', b.maxLeverShare, b.maxLeverShare <= 0.4),
    t('change only narrows', b.narrowingViolations, b.narrowingViolations === 0),
    t('no self-contradictory topic', b.contradictions, b.contradictions === 0),
    t(
      'held-out wording: no benchmark change frame in the train seeds',
      b.wording.benchmarkFramesInTrainSeeds,
      b.wording.benchmarkFramesInTrainSeeds === 0 && b.wording.benchmarkFrames > 0,
    ),
    t(
      'seen wording split written beside it',
      f.followirSeen?.wording.benchmarkFramesInTrainSeeds ?? 'missing',
      !!f.followirSeen && f.followirSeen.wording.benchmarkFramesInTrainSeeds > 0,
    ),
    t('reverser: >= 5 levers each >= 5%', r.leversAtLeast5pct, r.leversAtLeast5pct >= 5),
    t('reverser: >= 5 paraphrases per frame', r.minParaphrasesPerFrame, r.minParaphrasesPerFrame >= 5),
    t('reverser: no (frame, lever) skeleton above 10%', r.maxSkeletonShare, r.maxSkeletonShare <= 0.1),
    t('reverser: query masked >= 70% distinct', r.maskedDistinctShare, r.maskedDistinctShare >= 0.7),
    t(
      'quoting cue alike in both views (within 10 points)',
      `${r.cues.original.quoted} vs ${r.cues.complement.quoted}`,
      Math.abs(r.cues.original.quoted - r.cues.complement.quoted) <= 0.1,
    ),
    t(
      'style cues alike in both views (first person, negation; within 10 points)',
      `${r.cues.original.firstPerson}/${r.cues.original.negation} vs ${r.cues.complement.firstPerson}/${r.cues.complement.negation}`,
      Math.abs(r.cues.original.firstPerson - r.cues.complement.firstPerson) <= 0.1 &&
        Math.abs(r.cues.original.negation - r.cues.complement.negation) <= 0.1,
    ),
    t('dev seeds get complements', r.devCoverage, r.devSeeds === 0 || r.devCoverage >= 0.5),
  ];
}
