/**
 * The task registry: presets name only registered benchmarks; every task's Hub dataset is in
 * @dv/data's catalogue with the same layout; and the regression test for issue 12 item 9 (the
 * FollowIR Score measure was looked up by set name with a silent nDCG@5 fallback, so Robust04
 * loaded with --data from a folder named `robust04` reported nDCG@5 instead of MAP@1000).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presets } from '@dv/core';
import { HUB_DATASETS } from '@dv/data';
import { writeFollowIRv1 } from '@dv/data/testing';
import { describe, expect, it } from 'vitest';
import { Bm25Ranker } from '../encoders/bm25.js';
import { benchmarkProfiles } from '../runners/benchmark-profiles.js';
import { runBenchmark } from '../runners/run-benchmark.js';
import { tinyFollowIrSet } from '../test-utils/test-sets.js';
import { loadBenchmarkSets } from './load-benchmark-sets.js';
import {
  BENCHMARKS,
  benchmarkEntry,
  findTask,
  TASKS,
  taskDatasets,
  taskEntry,
  taskForSet,
  taskLayout,
  UnknownTaskError,
} from './task-registry.js';

describe('task registry', () => {
  it('every preset names registered benchmarks only', () => {
    for (const p of Object.values(presets))
      for (const b of p.config.eval.benchmarks)
        expect(() => benchmarkEntry(b), `${p.name}: ${b}`).not.toThrow();
    expect(benchmarkEntry('mini-followir')).toBe(benchmarkEntry('mini'));
  });
  it('each task pins a Hub dataset of @dv/data with its layout, and each benchmark one profile', () => {
    for (const t of Object.values(TASKS)) {
      for (const d of taskDatasets(t)) {
        expect(HUB_DATASETS[d.key].repo).toBe(d.repo);
        expect(d.layout === t.layout || (t.layout === 'mair' && d.layout === 'mair')).toBe(true);
        if (d.revision !== null) expect(d.revision).toMatch(/^[0-9a-f]{40}$/);
      }
      expect(Object.keys(benchmarkProfiles)).toContain(t.profile);
      if (t.profile === 'followir') expect(t.scoreMeasure).toMatch(/^(map_cut\.1000|ndcg_cut\.5)$/);
    }
    for (const b of Object.values(BENCHMARKS))
      for (const t of b.tasks) expect(taskEntry(t).profile).toBe(b.profile);
  });
  // issue 22: mteb 2 evaluates other copies of FollowIR (mteb/Core17InstructionRetrieval...)
  // than the paper's jhu-clsp/<name>-instructions; both are registered, each at its own pin
  it('each FollowIR task also names the dataset mteb 2 evaluates, in the v2 layout, pinned', () => {
    for (const name of BENCHMARKS.followir.tasks) {
      const t = taskEntry(name);
      const [paper] = taskDatasets(t);
      const [mteb2, ...rest] = taskDatasets(t, 'mteb2');
      expect(rest).toEqual([]);
      expect(mteb2!.repo).not.toBe(paper!.repo);
      expect(mteb2!.layout).toBe('followir-v2');
      expect(taskLayout(t, 'mteb2')).toBe('followir-v2');
      expect(mteb2!.revision).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(taskDatasets(TASKS.Core17InstructionRetrieval, 'mteb2')[0]!.repo).toBe(
      'mteb/Core17InstructionRetrieval',
    );
    expect(taskDatasets(TASKS['InfoSearch-Audience'], 'mteb2')).toEqual([]);
    expect(() => taskLayout(TASKS['InfoSearch-Audience'], 'mteb2')).toThrow(
      /InfoSearch-Audience has no mteb2 copy of its data \(paper\)/,
    );
  });
  it('an unknown benchmark, task or set is an error naming what is registered, never a fallback', () => {
    expect(() => benchmarkEntry('followir2')).toThrow(
      /unknown benchmark 'followir2'; registered: followir, /,
    );
    expect(() => taskEntry('Robust05')).toThrow(UnknownTaskError);
    expect(findTask(BENCHMARKS.followir, 'my-set')).toBeNull();
    expect(() => taskForSet(BENCHMARKS.followir, 'my-set', 'x.json')).toThrow(
      /x\.json: set 'my-set' is not a registered followir task \(Robust04InstructionRetrieval \/ robust04/,
    );
    expect(taskForSet(BENCHMARKS.followir, 'ROBUST04').name).toBe('Robust04InstructionRetrieval');
    expect(taskForSet(BENCHMARKS.mair, 'CliniDS_2016').name).toBe('MAIR');
  });
});

/** The tiny set with a grade-2 doc for q1 that BM25 ranks low: nDCG@5 < 1 = MAP, so they differ. */
function gradedSet(name: string) {
  const set = tinyFollowIrSet(name);
  set.qrels.og!.get('q1')!.set('d4', 2);
  return set;
}

describe('FollowIR Score comes from the task entry (issue 12 item 9)', () => {
  it('a folder named robust04 under --data is Robust04, scored with MAP@1000; core17 too; news21 nDCG@5', async () => {
    const data = mkdtempSync(join(tmpdir(), 'dv-tasks-'));
    for (const folder of ['robust04', 'News21InstructionRetrieval', 'core17-instructions'])
      await writeFollowIRv1(join(data, folder), gradedSet(folder));
    const sets = await loadBenchmarkSets(BENCHMARKS.followir, { data });
    expect(sets.map((s) => s.name).sort()).toEqual([
      'Core17InstructionRetrieval',
      'News21InstructionRetrieval',
      'Robust04InstructionRetrieval',
    ]);
    const out = mkdtempSync(join(tmpdir(), 'dv-tasks-out-'));
    const s = await runBenchmark(sets, new Bm25Ranker(), { benchmark: BENCHMARKS.followir, outDir: out });
    const by = Object.fromEntries(s.results.map((r) => [r.dataset, r.scores]));
    expect(by.Robust04InstructionRetrieval!.score).toBe(by.Robust04InstructionRetrieval!.og_map_cut_1000);
    expect(by.Core17InstructionRetrieval!.score).toBe(by.Core17InstructionRetrieval!.og_map_cut_1000);
    expect(by.News21InstructionRetrieval!.score).toBe(by.News21InstructionRetrieval!.og_ndcg_cut_5);
    // the tiny set tells the two measures apart, so the check above could fail
    expect(by.Robust04InstructionRetrieval!.og_map_cut_1000).not.toBe(
      by.Robust04InstructionRetrieval!.og_ndcg_cut_5,
    );
  });
  it('an unregistered folder is refused before anything is scored', async () => {
    const data = mkdtempSync(join(tmpdir(), 'dv-tasks-'));
    await writeFollowIRv1(join(data, 'my-robust'), tinyFollowIrSet('x'));
    await expect(loadBenchmarkSets(BENCHMARKS.followir, { data })).rejects.toThrow(
      `${join(data, 'my-robust')}: set 'my-robust' is not a registered followir task`,
    );
  });
});
