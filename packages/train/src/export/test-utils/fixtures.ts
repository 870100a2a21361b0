// Loads a tiny Hugging Face fixture (config, weights, reference outputs) for export tests and
// compares arrays. Fixtures live in data-external and are optional.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSafetensors, type SafetensorsTensor } from '../../safetensors/index.js';
import { tinyModelDir } from '../../test-utils/tiny-model-dir.js';
import { type EncoderWeight, encoderWeightsFromSafetensors } from '../encoder-weights.js';

export const fixtureNames = [
  'tiny-bert-uncased-wordpiece',
  'tiny-xlm-roberta-unigram',
  'tiny-gte-multilingual-newmodel',
] as const;

export interface Fixture {
  readonly name: string;
  readonly dir: string;
  readonly config: Record<string, unknown>;
  readonly weights: Map<string, EncoderWeight>;
  readonly expected: ReadonlyMap<string, SafetensorsTensor>;
}

export function loadFixture(name: string): Fixture | undefined {
  const dir = tinyModelDir(name);
  if (!dir) return undefined;
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  const weights = encoderWeightsFromSafetensors(readSafetensors(join(dir, 'model.safetensors')));
  const expected = readSafetensors(join(dir, 'expected.safetensors')).tensors;
  return { name, dir, config, weights, expected };
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** Rows `rows`, first `len` positions, of a [B, S, ...rest] row-major array. */
export function sliceBatch<T extends ArrayLike<number | bigint>>(
  data: T,
  shape: readonly number[],
  rows: readonly number[],
  len: number,
): (number | bigint)[] {
  const [, s, ...rest] = shape;
  const inner = rest.reduce((a, b) => a * b, 1);
  const out: (number | bigint)[] = [];
  for (const r of rows)
    for (let t = 0; t < len; t++) for (let k = 0; k < inner; k++) out.push(data[(r * s! + t) * inner + k]!);
  return out;
}
