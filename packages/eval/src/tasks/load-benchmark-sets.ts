/**
 * Loads the sets of a registered benchmark (task-registry.ts) through the @dv/data loaders:
 * from the Hub at each task's pinned revision (cache first), or from `data`, a local folder;
 * `source` picks which copy of the data (the paper's, or the one mteb 2 evaluates) and with it
 * the layout. Each set's `origin` and `revision` say what was read (repo and commit, or folder).
 * Each set is named after its task, so scoring never depends on how a folder was called:
 * under `--data`, a subfolder must be a registered task's name or alias (`robust04`,
 * `Robust04InstructionRetrieval`...), else it is an error listing what is registered.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, type InstructedSet } from '@dv/core';
import {
  fetchRegisteredDataset,
  HUB_DATASETS,
  loadFollowIRv1,
  loadFollowIRv2,
  loadInfoSearch,
  loadMairTask,
  loadMiniWorld,
} from '@dv/data';
import {
  type BenchmarkEntry,
  type TaskLayout,
  type TaskSource,
  taskDatasets,
  taskEntry,
  taskForSet,
  taskLayout,
} from './task-registry.js';

export interface LoadBenchmarkContext {
  /** A local folder instead of the Hub (see each benchmark's `source`). */
  data?: string;
  /** Hub sets from the local cache only. */
  offline?: boolean;
  /** Notes for the user (a skipped unpinned set). */
  note?: (line: string) => void;
  /** Which copy of the data (task-registry.ts `TaskSource`; default `paper`). */
  source?: TaskSource;
}

/** Thrown when a benchmark can only be read from a local folder and none was given. */
export class NeedsDataError extends Error {
  override readonly name = 'NeedsDataError';
}

/** Subfolders of `dir` (sorted), for folders holding one dataset per subfolder. */
function subfolders(dir: string): string[] {
  if (!existsSync(dir)) throw new DataError('folder not found', dir);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

type FolderLoader = (
  dir: string,
  o: { name: string; origin: string; revision?: string },
) => Promise<InstructedSet>;

const FOLDER_LOADERS: Partial<Record<TaskLayout | 'followir-v2', FolderLoader>> = {
  'followir-v1': loadFollowIRv1,
  'followir-v2': loadFollowIRv2,
  infosearch: loadInfoSearch,
  mair: (dir, o) =>
    loadMairTask({ queries: [join(dir, 'queries.jsonl')], docs: [join(dir, 'docs.jsonl')] }, o),
};

export async function loadBenchmarkSets(
  bench: BenchmarkEntry,
  ctx: LoadBenchmarkContext = {},
): Promise<InstructedSet[]> {
  const tasks = bench.tasks.map(taskEntry);
  const source = ctx.source ?? 'paper';
  // a task without a copy from `source` is an error naming the copies it has, before any download
  const layout = tasks.map((t) => taskLayout(t, source))[0]!;
  if (layout === 'mini-followir' || layout === 'mini-infosearch') {
    if (!ctx.data)
      throw new NeedsDataError(
        `${bench.name} needs --data DIR (build a mini world with 'dv data build-mini --out DIR')`,
      );
    const world = await loadMiniWorld(ctx.data);
    if (layout === 'mini-followir') return [await world.loadFollowIR()];
    const sets = await Promise.all(world.levers.map((l) => world.loadInfoSearch(l)));
    return sets.filter((s) => s.queries.length > 0);
  }
  const load = FOLDER_LOADERS[layout]!;
  if (ctx.data) {
    const dir = ctx.data;
    const out: InstructedSet[] = [];
    for (const folder of subfolders(dir)) {
      const task = taskForSet(bench, folder, join(dir, folder));
      out.push(
        await load(join(dir, folder), { name: task.anySet ? folder : task.name, origin: join(dir, folder) }),
      );
    }
    return out;
  }
  const out: InstructedSet[] = [];
  for (const task of tasks) {
    if (task.anySet || taskDatasets(task, source).length !== 1)
      throw new NeedsDataError(
        `${bench.name} needs --data DIR (${task.name} has no single pinned Hub dataset)`,
      );
    const key = taskDatasets(task, source)[0]!.key;
    const entry = HUB_DATASETS[key];
    if (!entry.revision) {
      ctx.note?.(`skipping ${task.name}: ${key} has no pinned revision yet (${entry.note})`);
      continue;
    }
    const got = await fetchRegisteredDataset(key, ctx.offline ? { offline: true } : {});
    out.push(await load(got.dir, { name: task.name, origin: got.repo, revision: got.commit }));
  }
  return out;
}
