/**
 * Stage `benchmarks` (paper profile): the evaluation data of every configured benchmark, task by
 * task from the @dv/eval task registry (each task names its @dv/data Hub datasets; their pinned
 * revisions, or `paper.datasets` overrides), downloaded through the Hub client (cache first) and
 * laid out as the registry's local-folder form under `data/<benchmark>/<set>/` (file links into
 * the Hub cache):
 *   followir, infosearch   one folder per task, named after the task (its loader's Hub layout);
 *   mair                   one folder per MAIR task present in both MAIR-Queries and MAIR-Docs,
 *                          holding its queries.jsonl and docs.jsonl.
 * The eval stages read them with loadBenchmarkSets(BENCHMARKS[b], { data }), so sets are scored
 * by their registered task. `benchmarks.json` (the hashed output) records repo, revision,
 * commit and the files of every dataset.
 */
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { DataError, writeJsonAtomic } from '@dv/core';
import { fetchRegisteredDataset, HUB_DATASETS, type HubDatasetName } from '@dv/data';
import { BENCHMARKS, taskEntry } from '@dv/eval';
import { linkFile } from '../../internal/link-tree.js';
import { paperBenchmarks, paperHubOptions, requirePaper } from '../../internal/paper-hub.js';
import { configuredRevision } from '../../paper-config.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';

export const BENCHMARKS_STAGE = 'benchmarks';
export const BENCHMARK_DATA = 'data';

/** The Hub datasets the configured benchmarks read, with the revision each is fetched at. */
export function benchmarkDatasets(
  config: Pick<RunConfig, 'paper' | 'eval'>,
): Array<{ benchmark: string; task: string; key: HubDatasetName; revision: string | null }> {
  const paper = requirePaper(config);
  const out = [];
  for (const b of paperBenchmarks(config))
    for (const t of BENCHMARKS[b].tasks)
      for (const key of taskEntry(t).hub)
        out.push({
          benchmark: b,
          task: t,
          key,
          revision: configuredRevision(paper, key) ?? HUB_DATASETS[key].revision,
        });
  return out;
}

export function benchmarksStage(config: Pick<RunConfig, 'paper' | 'eval'>): StageSpec {
  const paper = requirePaper(config);
  const datasets = benchmarkDatasets(config);
  return {
    id: BENCHMARKS_STAGE,
    group: 'benchmarks',
    deps: [],
    code: [{ package: '@dv/eval' }, stageFileCode('paper/benchmarks-stage.ts')],
    config: datasets,
    estimateSeconds: 30 * datasets.length,
    async run(ctx) {
      const unpinned = datasets.filter((d) => !d.revision);
      if (unpinned.length)
        throw new DataError(
          `no pinned revision for ${unpinned.map((d) => d.key).join(', ')}: set paper.datasets [{"name":"<name>","revision":"<40-hex commit>"}]`,
        );
      const hub = paperHubOptions(paper);
      const root = join(ctx.dir, BENCHMARK_DATA);
      const record: Record<string, unknown>[] = [];
      const got = new Map<string, Awaited<ReturnType<typeof fetchRegisteredDataset>>>();
      for (const d of datasets) {
        const g = await fetchRegisteredDataset(d.key, { ...hub, revision: d.revision! });
        got.set(d.key, g);
        record.push({
          benchmark: d.benchmark,
          task: d.task,
          dataset: d.key,
          repo: g.repo,
          revision: d.revision,
          commit: g.commit,
          files: g.files.map((f) => relative(g.dir, f)).sort(),
        });
        ctx.log(`${d.task}: ${g.repo}@${g.commit.slice(0, 12)} (${g.files.length} files)`);
        await ctx.checkpoint(`fetched ${d.key}`);
      }
      const sets: Record<string, string[]> = {};
      for (const b of paperBenchmarks(config)) {
        const dir = join(root, b);
        sets[b] = [];
        if (b === 'mair') {
          const q = got.get('mair-queries')!;
          const docs = got.get('mair-docs')!;
          const tasksOf = (g: typeof q, file: string) =>
            new Map(
              g.files
                .map((f) => relative(g.dir, f).split('/'))
                .filter((p) => p.length === 2 && p[1] === file)
                .map((p) => [p[0]!, join(g.dir, ...p)]),
            );
          const qs = tasksOf(q, 'queries.jsonl');
          const ds = tasksOf(docs, 'docs.jsonl');
          for (const [task, qf] of [...qs.entries()].sort()) {
            const df = ds.get(task);
            if (!df) continue;
            linkFile(dir, join(task, 'queries.jsonl'), qf);
            linkFile(dir, join(task, 'docs.jsonl'), df);
            sets[b].push(task);
          }
          if (sets[b].length === 0)
            throw new DataError(`MAIR: no task has both <task>/queries.jsonl and <task>/docs.jsonl`, q.dir);
          continue;
        }
        for (const t of BENCHMARKS[b].tasks) {
          const g = got.get(taskEntry(t).hub[0]!)!;
          for (const f of g.files) linkFile(join(dir, t), relative(g.dir, f), f);
          sets[b].push(t);
        }
      }
      const out = join(ctx.dir, 'benchmarks.json');
      await writeJsonAtomic(out, { datasets: record, sets });
      return { outputs: [out], summary: { sets } };
    },
  };
}
