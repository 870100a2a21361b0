/** Small helpers shared by the encoders that load a model folder and encode in batches. */
import { existsSync, readFileSync } from 'node:fs';
import { DataError } from '@dv/core';

/** The parsed JSON object at `path`, null when the file is absent, a DataError when it is not JSON. */
export function readJsonIfPresent(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new DataError(`not a JSON file: ${(err as Error).message}`, path);
  }
}

/** Encodes `texts` in batches of `batchSize` with `run` (rows of `dim` floats) into one matrix. */
export async function encodeInBatches(
  texts: readonly string[],
  dim: number,
  batchSize: number,
  run: (batch: readonly string[]) => Promise<Float32Array>,
): Promise<Float32Array> {
  const out = new Float32Array(texts.length * dim);
  for (let s = 0; s < texts.length; s += batchSize)
    out.set(await run(texts.slice(s, s + batchSize)), s * dim);
  return out;
}
