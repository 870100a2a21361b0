/**
 * Sizing a mini backbone: the config overrides for `layers` and `hidden` on top of a
 * `miniBackbones` layout, used by `dv train init` and MLM pretraining alike.
 *
 *   num_attention_heads = hidden / 64          (heads of 64 dimensions, as BERT-base)
 *   intermediate_size   = round(hidden * base.intermediate_size / base.hidden_size)
 *
 * so the FFN keeps its layout's ratio (4x for BERT, 2/3 of that for gte's gated FFN).
 * A `hidden` that is not a positive multiple of 64 is a RangeError naming `hidden`.
 */
import { type MiniBackboneName, miniBackbones } from './mini-backbones.js';

/** Dimensions per attention head of every mini backbone. */
export const MINI_HEAD_SIZE = 64;

export interface MiniBackboneSize {
  num_hidden_layers?: number;
  hidden_size?: number;
  num_attention_heads?: number;
  intermediate_size?: number;
}

export function miniBackboneSize(
  backbone: MiniBackboneName,
  size: { layers?: number; hidden?: number },
): MiniBackboneSize {
  const out: MiniBackboneSize = {};
  if (size.layers !== undefined) out.num_hidden_layers = size.layers;
  const h = size.hidden;
  if (h !== undefined) {
    if (!Number.isInteger(h) || h <= 0 || h % MINI_HEAD_SIZE !== 0)
      throw new RangeError(`hidden must be a multiple of ${MINI_HEAD_SIZE}`);
    const base = miniBackbones[backbone];
    out.hidden_size = h;
    out.num_attention_heads = h / MINI_HEAD_SIZE;
    out.intermediate_size = Math.round((base.intermediate_size / base.hidden_size) * h);
  }
  return out;
}

/** Number of scalar parameters of a model (the sum of its tensors' sizes). */
export function parameterCount(params: ReadonlyMap<string, { size: number }>): number {
  let n = 0;
  for (const v of params.values()) n += v.size;
  return n;
}
