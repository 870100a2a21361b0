/**
 * Plain encoder weights, the hand-over format between a trainer and the exporters: a map from
 * Hugging Face parameter name (without the base-model prefix: `embeddings.word_embeddings.weight`,
 * `encoder.layer.0.attention.self.query.weight`, ...) to a Float32Array in row-major order and
 * its shape, with torch's conventions (a Linear weight is [out, in]).
 */
import { DataError } from '@dv/core';
import { architectures } from '../architectures/registry.js';
import type { SafetensorsFile } from '../safetensors/index.js';
import { tensorToFloat32 } from '../safetensors/index.js';

export interface EncoderWeight {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

export type EncoderWeights = ReadonlyMap<string, EncoderWeight>;

/** Accepts a Map or a plain object of weights. */
export function toWeightMap(
  weights: EncoderWeights | Readonly<Record<string, EncoderWeight>>,
): EncoderWeights {
  return weights instanceof Map ? weights : new Map(Object.entries(weights));
}

/**
 * Float32 weights from a safetensors file, with a base-model prefix (an architecture's
 * `base_model_prefix`: `bert.`, `roberta.`, `new.`) removed where the encoder keys carry one;
 * other keys (heads) keep their names.
 */
export function encoderWeightsFromSafetensors(
  file: SafetensorsFile,
  source = 'model.safetensors',
): Map<string, EncoderWeight> {
  const prefixes = Object.values(architectures).map((a) => `${a.huggingFace.baseModelPrefix}.`);
  const names = [...file.tensors.keys()];
  const prefix = prefixes.find((p) => names.some((n) => n.startsWith(`${p}embeddings.`)));
  const out = new Map<string, EncoderWeight>();
  for (const [name, t] of file.tensors) {
    const key = prefix && name.startsWith(prefix) ? name.slice(prefix.length) : name;
    out.set(key, { shape: t.shape, data: tensorToFloat32(t, `${source}: ${name}`) });
  }
  return out;
}

/** Fetches a weight and checks its shape; a missing or misshapen weight is a `DataError`. */
export function requireWeight(weights: EncoderWeights, name: string, shape: readonly number[]): Float32Array {
  const w = weights.get(name);
  if (!w) throw new DataError(`missing weight "${name}"`);
  if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i])) {
    throw new DataError(`weight "${name}": expected shape [${shape}], got [${w.shape}]`);
  }
  if (w.data.length !== shape.reduce((a, b) => a * b, 1)) {
    throw new DataError(`weight "${name}": ${w.data.length} values for shape [${shape}]`);
  }
  return w.data;
}
