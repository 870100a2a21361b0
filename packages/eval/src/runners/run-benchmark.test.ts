import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvaluationResult, RunManifest, readRun } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { Bm25Ranker } from '../encoders/bm25.js';
import { BENCHMARKS } from '../tasks/task-registry.js';
import { tinyFollowIrSet, tinyInfoSearchSet, tinyMairSet } from '../test-utils/test-sets.js';
import { type BenchmarkEvent, describeBenchmarkEvent } from './benchmark-event.js';
import { readInstructedSetJson, writeInstructedSetJson } from './instructed-set-json.js';
import { paperTable } from './paper-table.js';
import { rankModes } from './rank-modes.js';
import { runBenchmark } from './run-benchmark.js';

describe('rankModes', () => {
  it('formats query + instruction per mode and reranks only the candidates', async () => {
    const seen: string[] = [];
    const ranker = new Bm25Ranker();
    const spy = {
      ...ranker,
      name: 'spy',
      formatter: ranker.formatter,
      settings: {},
      retrieve: ranker.retrieve.bind(ranker),
      rerank: async (qs: readonly { id: string; text: string }[], c: never, cand: never) => {
        seen.push(...qs.map((q) => q.text));
        return ranker.rerank(qs, c, cand);
      },
    };
    const runs = await rankModes(tinyFollowIrSet(), spy, { topK: 10 });
    expect(seen).toContain('bass Any sense: fish or instrument.');
    expect(seen).toContain('bass Only the instrument, not the fish.');
    expect([...runs.og!.get('q1')!.keys()].sort()).toEqual(['d1', 'd2', 'd3', 'd4']);
  });
});

describe('runBenchmark', () => {
  it('reports progress as typed events: ranking per mode, then set-done with the main score', async () => {
    const events: BenchmarkEvent[] = [];
    const lines: string[] = [];
    const s = await runBenchmark([tinyFollowIrSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-followir'],
      outDir: mkdtempSync(join(tmpdir(), 'dv-run-')),
      onEvent: (e) => events.push(e),
      log: (line) => lines.push(line),
    });
    expect(events.filter((e) => e.type === 'ranking').map((e) => e.type === 'ranking' && e.mode)).toEqual([
      'og',
      'changed',
    ]);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      type: 'set-done',
      set: 'mini-followir',
      index: 1,
      total: 1,
      mainMeasure: 'p-MRR',
    });
    expect(done.type === 'set-done' && done.mainScore).toBe(s.results[0]!.mainScore);
    expect(lines).toEqual(events.map(describeBenchmarkEvent));
  });

  it('FollowIR form: writes runs, result JSON, mteb JSON, summary and manifest', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-run-'));
    const s = await runBenchmark([tinyFollowIrSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-followir'],
      outDir: out,
    });
    const r = EvaluationResult.parse(JSON.parse(readFileSync(join(out, 'mini-followir.json'), 'utf8')));
    expect(r.mainMetric).toBe('p-MRR');
    expect(r.mainScore).toBe(r.scores['p-MRR']);
    expect(r.scores.score).toBe(r.scores.og_ndcg_cut_5); // mini sets use nDCG@5
    expect(r.numQueries).toBe(2);
    expect(r.mainScore).toBeGreaterThanOrEqual(-1);
    expect(r.mainScore).toBeLessThanOrEqual(1);
    const og = await readRun(join(out, 'mini-followir', 'og.run'));
    expect(og.get('q1')!.size).toBe(4);
    const mteb = JSON.parse(
      readFileSync(join(out, 'results', 'bm25', 'no_revision_available', 'mini-followir.json'), 'utf8'),
    );
    expect(mteb.scores.test[0].main_score).toBe(r.mainScore);
    expect(mteb.scores.test[0].og.ndcg_at_5).toBe(r.scores.og_ndcg_cut_5);
    expect(existsSync(join(out, 'results', 'bm25', 'no_revision_available', 'model_meta.json'))).toBe(true);
    const man = RunManifest.parse(JSON.parse(readFileSync(s.manifest, 'utf8')));
    expect(man.kind).toBe('eval-run');
    expect(man.outputs.map((o) => o.path)).toContain('mini-followir/changed.run');
    expect(man.formatter).toEqual(new Bm25Ranker().formatter);
    const table = paperTable(s, 'followir');
    expect(table).toContain('Score');
    expect(table).toMatch(/mini-followir\s+-?\d+\.\d\s+-?\d+\.\d/);
  });

  it('the same set and model give byte-identical runs (deterministic)', async () => {
    const a = mkdtempSync(join(tmpdir(), 'dv-run-'));
    const b = mkdtempSync(join(tmpdir(), 'dv-run-'));
    for (const out of [a, b])
      await runBenchmark([tinyFollowIrSet()], new Bm25Ranker(), {
        benchmark: BENCHMARKS['mini-followir'],
        outDir: out,
      });
    expect(readFileSync(join(a, 'mini-followir', 'og.run'), 'utf8')).toBe(
      readFileSync(join(b, 'mini-followir', 'og.run'), 'utf8'),
    );
  });

  it('InfoSearch form: three modes, nDCG@10 per mode, p-MRR, SICR, WISE', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-run-'));
    const s = await runBenchmark([tinyInfoSearchSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-infosearch'],
      outDir: out,
    });
    const r = s.results[0]!;
    for (const k of [
      'og_ndcg_cut_10',
      'changed_ndcg_cut_10',
      'reversed_ndcg_cut_10',
      'p-MRR',
      'SICR',
      'WISE',
    ])
      expect(r.scores).toHaveProperty(k);
    expect(existsSync(join(out, 'InfoSearch-Tiny', 'reversed.run'))).toBe(true);
    expect(paperTable(s, 'infosearch')).toContain('WISE');
    const out2 = mkdtempSync(join(tmpdir(), 'dv-run-'));
    const code = await runBenchmark([tinyInfoSearchSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-infosearch'],
      outDir: out2,
      scoring: { infoSearchVariant: 'code' },
    });
    expect(code.results[0]!.scores.og_ndcg_cut_10).toBe(r.scores.og_ndcg_cut_10);
    expect(JSON.parse(readFileSync(code.manifest, 'utf8')).config.scoring).toEqual({
      infoSearchVariant: 'code',
    });
  });

  it('MAIR form: og only, nDCG@10 main metric, averages over datasets', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-run-'));
    const two = [tinyMairSet(), { ...tinyMairSet(), name: 'MAIR-Tiny-2' }];
    const s = await runBenchmark(two, new Bm25Ranker(), { benchmark: BENCHMARKS.mair, outDir: out });
    expect(s.results.map((r) => r.mainMetric)).toEqual(['ndcg_cut_10', 'ndcg_cut_10']);
    expect(s.average.ndcg_cut_10).toBeCloseTo(s.results[0]!.mainScore, 12);
    expect(paperTable(s, 'mair')).toContain('average');
  });

  it('a rerank benchmark refuses a set without candidates', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-run-'));
    await expect(
      runBenchmark([tinyMairSet()], new Bm25Ranker(), {
        benchmark: BENCHMARKS['mini-followir'],
        outDir: out,
      }),
    ).rejects.toThrow(/candidate lists/);
  });
});

describe('InstructedSet JSON', () => {
  it('round-trips, and names the file and field on bad input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-set-'));
    const p = join(dir, 'set.json');
    await writeInstructedSetJson(p, tinyFollowIrSet());
    const back = readInstructedSetJson(p);
    expect(back.qrels.changed).toEqual(tinyFollowIrSet().qrels.changed);
    expect(back.candidates).toEqual(tinyFollowIrSet().candidates);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'x', corpus: [{ text: 't' }], queries: [], qrels: {} }));
    expect(() => readInstructedSetJson(bad)).toThrow(`${bad}: corpus.0.docid`);
  });
});
