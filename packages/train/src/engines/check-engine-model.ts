/**
 * Checks the model folder a sentence-transformers engine run wrote (`output/final/` of a
 * `dv train export --engine sentence-transformers` folder, saved by `dv_st_train.py`) before
 * anything evaluates it:
 *  - the files our encoders read are there: `config.json`, `model.safetensors`,
 *    `tokenizer.json`, and the sentence-transformers pipeline (`modules.json`, whose Pooling
 *    module says how it pools);
 *  - it loads in our tfjs encoder, and gives the embeddings the engine itself gave for the same
 *    texts (`probe.json`, written by rank 0 next to `final/`): cosine >= `minCosine` per text
 *    (default 0.999: a loader check, loose enough for a model trained in reduced precision).
 * A failure is a DataError naming the folder and what is wrong.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DataError } from '@dv/core';
import { TfjsEncoder } from '../encoders/tfjs-encoder.js';

export const ENGINE_MODEL_FILES = [
  'config.json',
  'model.safetensors',
  'tokenizer.json',
  'modules.json',
] as const;

export interface EngineModelCheck {
  dir: string;
  dim: number;
  /** Texts of probe.json compared (0 when the engine wrote none). */
  probes: number;
  /** The lowest cosine between our embedding and the engine's over the probes (1 with none). */
  minCosine: number;
}

export interface CheckEngineModelOptions {
  /** Default `<dir>/../probe.json`. */
  probe?: string;
  minCosine?: number;
}

export async function checkEngineModel(
  dir: string,
  o: CheckEngineModelOptions = {},
): Promise<EngineModelCheck> {
  if (!existsSync(dir)) throw new DataError('the engine wrote no model folder', dir);
  const missing = ENGINE_MODEL_FILES.filter((f) => !existsSync(join(dir, f)));
  if (missing.length)
    throw new DataError(
      `the engine's model folder lacks ${missing.join(', ')} (a sentence-transformers folder has them)`,
      dir,
    );
  const probePath = o.probe ?? join(dirname(dir), 'probe.json');
  let probe: { texts: string[]; embeddings: number[][] } = { texts: [], embeddings: [] };
  if (existsSync(probePath)) {
    try {
      probe = JSON.parse(readFileSync(probePath, 'utf8'));
    } catch (err) {
      throw new DataError(`not JSON: ${(err as Error).message}`, probePath);
    }
  }
  let encoder: TfjsEncoder;
  try {
    encoder = await TfjsEncoder.fromDir(dir);
  } catch (err) {
    throw new DataError(
      `the engine's model does not load in the tfjs encoder: ${(err as Error).message}`,
      dir,
    );
  }
  try {
    const want = o.minCosine ?? 0.999;
    let minCosine = 1;
    if (probe.texts.length > 0) {
      const got = await encoder.encodeQueries(probe.texts);
      const d = encoder.dim;
      probe.texts.forEach((text, i) => {
        const theirs = probe.embeddings[i] ?? [];
        if (theirs.length !== d)
          throw new DataError(`probe ${i} has ${theirs.length} dimensions, the model ${d}`, probePath);
        let dot = 0;
        let a = 0;
        let b = 0;
        for (let j = 0; j < d; j++) {
          const x = got[i * d + j]!;
          const y = theirs[j]!;
          dot += x * y;
          a += x * x;
          b += y * y;
        }
        const cos = dot / Math.sqrt(a * b || 1);
        minCosine = Math.min(minCosine, cos);
        if (!(cos >= want))
          throw new DataError(
            `our encoder and the engine disagree on probe ${i} (${JSON.stringify(text.slice(0, 60))}): cosine ${cos.toFixed(6)} < ${want}`,
            dir,
          );
      });
    }
    return { dir, dim: encoder.dim, probes: probe.texts.length, minCosine };
  } finally {
    await encoder.close();
  }
}
