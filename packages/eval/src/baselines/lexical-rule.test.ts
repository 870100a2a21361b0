/** The word-matching baseline (issue 26): the rule by hand, then on a built mini world against BM25. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstructedSet, Run } from '@dv/core';
import { buildMiniWorld, loadMiniWorld } from '@dv/data';
import { describe, expect, it } from 'vitest';
import { Bm25Ranker } from '../encoders/bm25.js';
import { runBenchmark } from '../runners/run-benchmark.js';
import { benchmarkEntry } from '../tasks/task-registry.js';
import { applyLexicalRule, instructionChange } from './lexical-rule.js';

const set: InstructedSet = {
  name: 'tiny',
  corpus: [
    { docid: 'lamp', title: '', text: 'the lighthouse lamp and its bright lens' },
    { docid: 'keeper', title: '', text: 'the lighthouse keeper lived by the coast' },
    { docid: 'toy', title: '', text: 'a toy lighthouse figurine' },
  ],
  queries: [
    {
      id: 'q1',
      query: 'lighthouse',
      instructions: {
        og: 'Documents about a lighthouse are relevant.',
        changed: 'Documents about a lighthouse are relevant. But not those about its lamp.',
      },
    },
    {
      id: 'q2',
      query: 'lighthouse',
      instructions: {
        og: 'Documents about a lighthouse are relevant.',
        changed: 'Documents about a lighthouse are relevant. Only those that mention a keeper.',
      },
    },
  ],
  qrels: {},
} as unknown as InstructedSet;

const og: Run = new Map([
  [
    'q1',
    new Map([
      ['lamp', 3],
      ['keeper', 2],
      ['toy', 1],
    ]),
  ],
  [
    'q2',
    new Map([
      ['lamp', 3],
      ['keeper', 2],
      ['toy', 1],
    ]),
  ],
]);
const order = (row: Map<string, number> | undefined) =>
  [...(row ?? new Map())].sort((a, b) => b[1] - a[1]).map(([d]) => d);

describe('lexical rule', () => {
  it('finds the added words and the negation', () => {
    expect(
      instructionChange(set.queries[0]!.instructions.og!, set.queries[0]!.instructions.changed!),
    ).toEqual({
      added: ['lamp'],
      negative: true,
    });
    expect(
      instructionChange(set.queries[1]!.instructions.og!, set.queries[1]!.instructions.changed!),
    ).toEqual({
      added: ['keeper', 'mention'],
      negative: false,
    });
  });
  it('demotes documents with an added word under a negative change, promotes them otherwise', () => {
    const r = applyLexicalRule(set, { og });
    expect(r.og).toBe(og);
    expect(order(r.changed!.get('q1'))).toEqual(['keeper', 'toy', 'lamp']);
    expect(order(r.changed!.get('q2'))).toEqual(['keeper', 'lamp', 'toy']);
    expect(() => applyLexicalRule(set, {})).toThrow(/needs the og run/);
  });
  it('on a built mini world it scores far above BM25 on p-MRR with the same Score (the benchmark rewards word matching)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-lexical-'));
    await buildMiniWorld({
      out: join(dir, 'world'),
      testLemmas: 60,
      devLemmas: 5,
      trainLemmas: 20,
      generalExamples: 0,
      infosearchTopicsPerLever: 2,
      progress: 'silent',
    });
    const sets = [await (await loadMiniWorld(join(dir, 'world'))).loadFollowIR()];
    const bm25 = new Bm25Ranker();
    const plain = await runBenchmark(sets, bm25, {
      benchmark: benchmarkEntry('mini-followir'),
      outDir: join(dir, 'bm25'),
    });
    const rule = await runBenchmark(sets, bm25, {
      benchmark: benchmarkEntry('mini-followir'),
      outDir: join(dir, 'rule'),
      postprocess: { name: 'lexical-rule', apply: applyLexicalRule },
    });
    expect(rule.model).toBe(`${bm25.name}+lexical-rule`);
    // measured on this world: the rule ~+20-30 p-MRR points over BM25; if a rebuilt world closes
    // that gap (the aim of issue 26), this expectation is what should change
    expect(rule.average['p-MRR']! - plain.average['p-MRR']!).toBeGreaterThan(0.05);
    expect(rule.average.score).toBeCloseTo(plain.average.score!, 10);
  }, 120_000);
});
