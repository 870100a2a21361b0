/**
 * The sets `dv eval run` evaluates: `--set FILE`s as they are, else the benchmark's loader
 * (Hub at pinned revisions, or `--data DIR`; `--source` picks the copy). A benchmark that needs
 * local data, or has no copy from `--source`, is a usage error.
 */
import type { InstructedSet } from '@dv/core';
import {
  type benchmarkEntry,
  loadBenchmarkSets,
  NeedsDataError,
  readInstructedSetJson,
  type TASK_SOURCES,
  UnknownTaskError,
} from '@dv/eval';
import { UsageError } from '../cli-kit.js';

export async function loadEvalSets(o: {
  bench: ReturnType<typeof benchmarkEntry>;
  files: readonly string[];
  data: string | undefined;
  offline: boolean;
  source: (typeof TASK_SOURCES)[number];
  stderr: NodeJS.WritableStream;
}): Promise<InstructedSet[]> {
  if (o.files.length > 0 && o.data) throw new UsageError('give --data or --set, not both');
  if (o.source !== 'paper' && o.files.length > 0)
    throw new UsageError(
      `--source ${o.source} picks what the loader reads; --set files are read as they are`,
    );
  try {
    return o.files.length > 0
      ? o.files.map((f) => readInstructedSetJson(f))
      : await loadBenchmarkSets(o.bench, {
          ...(o.data ? { data: o.data } : {}),
          offline: o.offline,
          note: (line) => o.stderr.write(`note: ${line}\n`),
          source: o.source,
        });
  } catch (err) {
    if (err instanceof NeedsDataError) throw new UsageError(err.message);
    // a benchmark without a copy from --source (InfoSearch, MAIR, the mini world)
    if (err instanceof UnknownTaskError && o.source !== 'paper') throw new UsageError(err.message);
    throw err;
  }
}
