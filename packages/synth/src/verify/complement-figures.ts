/**
 * How varied and how honest the offline reverser's complements are, over a list of seeds
 * (each seed's first instruction negative is D-, as in `prepareTask`):
 * - coverage: share of seeds that get a complement (overall and for dev seeds, which the
 *   reproduce stage needs for complement-view accuracy on held-out lemmas);
 * - lever shares; how many levers reach 5% of complements;
 * - skeleton shares: the (style / frame / paraphrase, lever) a complement was written from;
 *   `maxSkeletonShare` is the largest; `minParaphrasesPerFrame` the smallest paraphrase pool;
 * - masked distinctness: share of distinct complements once the query is replaced by a mask
 *   (quotes included), and the count of the most repeated one;
 * - cues per view (original I vs complement I'): share quoting the query, share in the first
 *   person, share with a negation cue; a cue that differs between views tells a model which
 *   view it reads instead of what the instruction asks;
 * - acceptance by the text-only lexical judge (the default) and by the metadata judge (opt-in).
 */
import type { SeedExample } from '@dv/core';
import { FRAME_PARAPHRASES, reverseOffline } from '../backends/offline-reverser.js';
import { createLexicalJudge } from './lexical-judge.js';

export interface ViewCues {
  quoted: number;
  firstPerson: number;
  negation: number;
}

export interface ComplementFigures {
  seeds: number;
  complements: number;
  coverage: number;
  devSeeds: number;
  devCoverage: number;
  leverShares: Record<string, number>;
  leversAtLeast5pct: number;
  maxSkeletonShare: number;
  minParaphrasesPerFrame: number;
  maskedDistinctShare: number;
  topMaskedRepeat: number;
  cues: { original: ViewCues; complement: ViewCues };
  textJudgePassShare: number;
  metadataJudgePassShare: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const share = (n: number, d: number) => round(n / Math.max(1, d));

const FIRST_PERSON = /\b(i|i'm|me|my)\b/i;
const NEGATION = /\b(not|no|never|except|exclude|skip|avoid|leave out|unless|without|rule out|drop)\b/i;

function cues(texts: ReadonlyArray<{ text: string; query: string }>): ViewCues {
  const n = texts.length;
  return {
    quoted: share(texts.filter((t) => t.text.includes(`"${t.query}"`)).length, n),
    firstPerson: share(texts.filter((t) => FIRST_PERSON.test(t.text)).length, n),
    negation: share(texts.filter((t) => NEGATION.test(t.text)).length, n),
  };
}

function mask(text: string, query: string): string {
  return text.split(`"${query}"`).join('Q').split(query).join('Q');
}

export async function complementFigures(seeds: ReadonlyArray<SeedExample>): Promise<ComplementFigures> {
  const textJudge = createLexicalJudge();
  const metaJudge = createLexicalJudge(undefined, { useMetadata: true });
  const levers: Record<string, number> = {};
  const skeletons = new Map<string, number>();
  const masked = new Map<string, number>();
  const originals: Array<{ text: string; query: string }> = [];
  const complements: Array<{ text: string; query: string }> = [];
  let usable = 0;
  let dev = 0;
  let devDone = 0;
  let textPass = 0;
  let metaPass = 0;
  for (const s of seeds) {
    const target = s.instructionNegatives[0];
    if (s.split === 'dev') dev++;
    if (!target || !s.positives[0]) continue;
    usable++;
    originals.push({ text: s.instruction.text, query: s.query });
    const task = {
      seedId: s.id,
      query: s.query,
      instruction: s.instruction,
      positive: s.positives[0],
      target,
      otherNegatives: s.instructionNegatives.slice(1),
    };
    const w = reverseOffline(task);
    if (!w) continue;
    if (s.split === 'dev') devDone++;
    complements.push({ text: w.text, query: s.query });
    levers[w.lever] = (levers[w.lever] ?? 0) + 1;
    skeletons.set(w.skeleton, (skeletons.get(w.skeleton) ?? 0) + 1);
    const m = mask(w.text, s.query);
    masked.set(m, (masked.get(m) ?? 0) + 1);
    const input = { ...task, newInstruction: w.text };
    if ((await textJudge.judge(input)).passed) textPass++;
    if ((await metaJudge.judge(input)).passed) metaPass++;
  }
  const n = complements.length;
  const leverShares = Object.fromEntries(
    Object.entries(levers)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, share(v, n)]),
  );
  const pools = Object.values(FRAME_PARAPHRASES).flatMap((byFrame) => Object.values(byFrame));
  return {
    seeds: seeds.length,
    complements: n,
    coverage: share(n, usable),
    devSeeds: dev,
    devCoverage: share(devDone, dev),
    leverShares,
    leversAtLeast5pct: Object.values(leverShares).filter((v) => v >= 0.05).length,
    maxSkeletonShare: share(Math.max(0, ...skeletons.values()), n),
    minParaphrasesPerFrame: Math.min(...pools.map((p) => p.length)),
    maskedDistinctShare: share(masked.size, n),
    topMaskedRepeat: Math.max(0, ...masked.values()),
    cues: { original: cues(originals), complement: cues(complements) },
    textJudgePassShare: share(textPass, n),
    metadataJudgePassShare: share(metaPass, n),
  };
}
