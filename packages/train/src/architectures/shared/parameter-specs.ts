/** Building blocks of the architectures' parameter lists (torch layouts, BERT's initialisation). */
import type { ParameterSpec } from '../encoder-architecture.js';

/** LayerNorm weight (ones) and bias (zeros) of width `h`. */
export const layerNormSpecs = (h: number): Record<string, ParameterSpec> => ({
  weight: { shape: [h], init: 'ones' },
  bias: { shape: [h], init: 'zeros' },
});

/** torch Linear: weight [out, in] ~ N(0, initializer_range), bias zeros. */
export const linearSpecs = (out: number, inp: number, bias = true): Record<string, ParameterSpec> => ({
  weight: { shape: [out, inp], init: 'normal' },
  ...(bias ? { bias: { shape: [out], init: 'zeros' } } : {}),
});

/** `specs` with every name prefixed by `prefix.`. */
export function prefixed(
  prefix: string,
  specs: Record<string, ParameterSpec>,
): Record<string, ParameterSpec> {
  return Object.fromEntries(Object.entries(specs).map(([k, v]) => [`${prefix}.${k}`, v]));
}
