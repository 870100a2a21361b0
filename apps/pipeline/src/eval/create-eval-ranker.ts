/**
 * The ranker of `dv eval run`: @dv/eval `createRanker` with the corpus-embedding cache in its
 * one documented place (`--cache-dir`, else `dvCacheDir`/embeddings, never the working folder)
 * and an encoding progress bar per pass. An unknown spec is usage (exit 2); a model that fails
 * to load or answer is a failure (exit 1).
 */
import {
  createProgress,
  DataError,
  dvCacheDir,
  type FormatterSettings,
  guardOutputDir,
  type OnnxPrecision,
} from '@dv/core';
import { createRanker, EmbeddingCache } from '@dv/eval';
import { UsageError } from '../cli-kit.js';

export async function createEvalRanker(
  spec: string,
  o: {
    cacheDir: string | undefined;
    formatter: FormatterSettings;
    precision: OnnxPrecision | undefined;
    stderr: NodeJS.WritableStream;
  },
): Promise<Awaited<ReturnType<typeof createRanker>>> {
  let encoding: ReturnType<typeof createProgress> | null = null;
  let encodingTotal = 0;
  let encodingDone = 0;
  try {
    return await createRanker(spec, {
      cache: new EmbeddingCache(
        o.cacheDir !== undefined
          ? guardOutputDir(o.cacheDir, { flag: '--cache-dir' })
          : dvCacheDir(process.env, 'embeddings'),
        { onNote: (line) => o.stderr.write(`note: ${line}\n`) },
      ),
      env: process.env,
      onEncode: (kind, done, total) => {
        if (!encoding || encodingTotal !== total || done <= encodingDone) {
          encoding = createProgress({ label: `encode ${kind}`, total, unit: 'texts' });
          encodingTotal = total;
        }
        encodingDone = done;
        encoding.update(done);
        if (done === total) {
          encoding.done();
          encoding = null;
        }
      },
      formatter: o.formatter,
      precision: o.precision,
    });
  } catch (err) {
    const message = (err as Error).message;
    if (/^unknown model|needs a model/.test(message)) throw new UsageError(message);
    if (err instanceof DataError) throw err;
    throw new DataError(`cannot load model '${spec}': ${message}`);
  }
}
