/**
 * Quality figures of a built mini world: does the benchmark measure instruction following, or
 * can keyword matching pass it? Pure functions over what the build writes (an `InstructedSet`
 * and the seed examples), so the same figures come from the builder (stats.json, manifest)
 * and from `dv data stats DIR` on a folder. The BM25 figures (p-MRR, Score) need a ranker and
 * live in @dv/eval; `dv data stats` composes both (the data package does not depend on eval).
 *
 * FollowIR-form benchmark, per topic (query metadata `changeLever`, `changeWords`,
 * `ogConstraint`, `changedConstraint`, `removedDocids`):
 * - lever shares: share of topics per change lever (the narrowing form); `maxLeverShare`;
 * - vacuous og: the og relevant set equals the judged set (every judged sense relevant);
 * - leakage: share of topics where a removed doc (relevant under og, not under changed) shows a
 *   word of the change's value in its title or text, against the share where a kept doc
 *   (relevant under changed) does; `ratio` = larger / smaller (1 = balanced, Infinity = one-sided).
 *   FollowIR's changes are written by people, so their words are not a key to the removed docs;
 * - narrowing violations: topics where the change adds a relevant doc, removes none or keeps none;
 * - contradictions: topics whose exclusion names a word of every alternative of the og
 *   requirement ("an animal" / "not a kind of animal"; dropping one of two og categories is not).
 * InfoSearch-style sets, per lever: the share of topics whose constraint words appear in an
 *   instructed-relevant doc and in a reversed-relevant doc (the keyword lever leaks by design).
 * Wording: change frames of the benchmark that also occur in the train seeds (0 for the held-out
 *   wording split; every frame for the seen-wording split), style shares of the train seeds.
 */
import { categoryPhrase, type InstructedSet, type Passage, type SeedExample } from '@dv/core';
import { tokenize } from '../internal/bm25.js';
import { round } from '../internal/summary.js';
import { docTokens } from './constraint.js';

export interface Leakage {
  /** Share of topics where a removed doc shows a word of the change. */
  removed: number;
  /** Share of topics where a kept doc shows a word of the change. */
  kept: number;
  /** max / min of the two (1 = balanced); null when both are 0. */
  ratio: number | null;
}

export interface BenchmarkQuality {
  topics: number;
  leverShares: Record<string, number>;
  maxLeverShare: number;
  /** Shares per constrained attribute (hypernym, category, topic, ...), all forms together. */
  attributeShares: Record<string, number>;
  vacuousOgShare: number;
  /** Share of topics whose og relevant set is a strict subset of the judged set. */
  selectiveOgShare: number;
  leakage: Leakage;
  narrowingViolations: number;
  contradictions: number;
}

export interface WordingQuality {
  /** Change frames (template ids) of the benchmark. */
  benchmarkFrames: number;
  /** Of those, how many also occur in the train seeds. */
  benchmarkFramesInTrainSeeds: number;
  /** Share of train seeds per style. */
  trainStyleShares: Record<string, number>;
}

/** Content words of a constraint as `describeConstraint` writes it (`not hypernym=fish|bird`). */
export function constraintWords(described: string): string[] {
  const out = new Set<string>();
  for (const part of described.split(' & ')) {
    const m = /^(?:not )?([a-z]+)=(.*)$/.exec(part.trim());
    if (!m) continue;
    for (const v of m[2]!.split('|')) {
      for (const t of tokenize(m[1] === 'category' ? categoryPhrase(v) : v)) out.add(t);
    }
  }
  return [...out].sort();
}

/** Words of each alternative value of a constraint (`category=noun.animal|noun.person` -> 2 lists). */
export function constraintAlternatives(described: string): string[][] {
  const m = /^(?:not )?([a-z]+)=(.*)$/.exec(described.split(' & ')[0]!.trim());
  if (!m) return [];
  return m[2]!.split('|').map((v) => tokenize(m[1] === 'category' ? categoryPhrase(v) : v));
}

const shareOf = (n: number, d: number) => round(n / Math.max(1, d));

export function leakageOf(removedHits: number, keptHits: number, topics: number): Leakage {
  const removed = shareOf(removedHits, topics);
  const kept = shareOf(keptHits, topics);
  const lo = Math.min(removedHits, keptHits);
  const hi = Math.max(removedHits, keptHits);
  return { removed, kept, ratio: hi === 0 ? null : lo === 0 ? Number.POSITIVE_INFINITY : round(hi / lo) };
}

function showsAny(doc: Passage | undefined, words: ReadonlyArray<string>): boolean {
  if (!doc || words.length === 0) return false;
  const toks = docTokens(doc);
  return words.some((w) => toks.has(w));
}

export function benchmarkQuality(set: InstructedSet): BenchmarkQuality {
  const byId = new Map(set.corpus.map((d) => [d.docid, d]));
  const og = set.qrels.og ?? new Map();
  const changed = set.qrels.changed ?? new Map();
  const levers: Record<string, number> = {};
  const attributes: Record<string, number> = {};
  let vacuous = 0;
  let selective = 0;
  let removedHits = 0;
  let keptHits = 0;
  let violations = 0;
  let contradictions = 0;
  for (const q of set.queries) {
    const m = q.metadata ?? {};
    const lever = String(m.changeLever ?? m.changedLever ?? 'unknown');
    levers[lever] = (levers[lever] ?? 0) + 1;
    const attribute = String(m.changedLever ?? 'unknown');
    attributes[attribute] = (attributes[attribute] ?? 0) + 1;
    const qo = og.get(q.id) ?? new Map<string, number>();
    const qc = changed.get(q.id) ?? new Map<string, number>();
    const relOg = [...qo].filter(([, g]) => g > 0).map(([d]) => d);
    if (relOg.length === qo.size) vacuous++;
    else if (relOg.length > 0) selective++;
    const kept = [...qc].filter(([, g]) => g > 0).map(([d]) => d);
    const removed = relOg.filter((d) => !((qc.get(d) ?? 0) > 0));
    if (kept.some((d) => !((qo.get(d) ?? 0) > 0)) || removed.length === 0 || kept.length === 0) violations++;
    const words = Array.isArray(m.changeWords)
      ? (m.changeWords as string[])
      : constraintWords(String(m.changedConstraint ?? ''));
    if (removed.some((d) => showsAny(byId.get(d), words))) removedHits++;
    if (kept.some((d) => showsAny(byId.get(d), words))) keptHits++;
    const change = String(m.changedConstraint ?? '');
    if (change.startsWith('not ') && !change.startsWith('not category=')) {
      // Contradictory: the exclusion names a word of EVERY alternative the og requires
      // ("an animal" then "not a kind of animal"); dropping one of two og categories is not.
      const ex = new Set(constraintWords(change));
      const alternatives = constraintAlternatives(String(m.ogConstraint ?? ''));
      if (alternatives.length > 0 && alternatives.every((a) => a.some((w) => ex.has(w)))) contradictions++;
    }
  }
  const n = set.queries.length;
  const sharesOf = (counts: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(counts)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, shareOf(v, n)]),
    );
  const leverShares = sharesOf(levers);
  return {
    topics: n,
    leverShares,
    maxLeverShare: Math.max(0, ...Object.values(leverShares)),
    attributeShares: sharesOf(attributes),
    vacuousOgShare: shareOf(vacuous, n),
    selectiveOgShare: shareOf(selective, n),
    leakage: leakageOf(removedHits, keptHits, n),
    narrowingViolations: violations,
    contradictions,
  };
}

/** InfoSearch-style set: constraint words in instructed-relevant vs reversed-relevant docs. */
export function infosearchLeakage(set: InstructedSet): Leakage & { topics: number } {
  const byId = new Map(set.corpus.map((d) => [d.docid, d]));
  let a = 0;
  let b = 0;
  for (const q of set.queries) {
    const c = q.metadata?.constraint as { lever?: string; anyOf?: string[] } | undefined;
    const words = c?.anyOf
      ? [...new Set(c.anyOf.flatMap((v) => tokenize(c.lever === 'category' ? categoryPhrase(v) : v)))]
      : [];
    const rel = (mode: 'changed' | 'reversed') =>
      [...(set.qrels[mode]?.get(q.id) ?? new Map<string, number>())].filter(([, g]) => g > 0).map(([d]) => d);
    if (rel('changed').some((d) => showsAny(byId.get(d), words))) a++;
    if (rel('reversed').some((d) => showsAny(byId.get(d), words))) b++;
  }
  const l = leakageOf(a, b, set.queries.length);
  return { topics: set.queries.length, removed: l.removed, kept: l.kept, ratio: l.ratio };
}

/** Frames of a benchmark's changes that the train seeds also use (query metadata `changeFrame`). */
export function wordingQuality(set: InstructedSet, trainSeeds: ReadonlyArray<SeedExample>): WordingQuality {
  const trainFrames = new Set<string>();
  const styles: Record<string, number> = {};
  for (const s of trainSeeds) {
    for (const f of (s.metadata?.frames as string[] | undefined) ?? []) trainFrames.add(f);
    const st = s.instruction.style ?? 'other';
    styles[st] = (styles[st] ?? 0) + 1;
  }
  const frames = new Set(set.queries.map((q) => String(q.metadata?.changeFrame ?? '')).filter(Boolean));
  return {
    benchmarkFrames: frames.size,
    benchmarkFramesInTrainSeeds: [...frames].filter((f) => trainFrames.has(f)).length,
    trainStyleShares: Object.fromEntries(
      Object.entries(styles)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, v]) => [k, shareOf(v, trainSeeds.length)]),
    ),
  };
}
