/**
 * gte NewModel's parameters: word (+ token type, when the config has types) embeddings and
 * LayerNorm, no position table; per layer packed `qkv_proj` [3H, H], `o_proj`, `attn_ln`, the
 * gated FFN's `up_gate_proj` [2I, H] (no bias) and `down_proj`, `mlp_ln`. No pooler.
 */
import type { ParameterSpec } from '../encoder-architecture.js';
import { linearSpecs as dense, layerNormSpecs as ln, prefixed } from '../shared/parameter-specs.js';
import type { GteNewConfig } from './config.js';

export function gteNewParameters(c: GteNewConfig): Record<string, ParameterSpec> {
  const h = c.hidden_size;
  const I = c.intermediate_size;
  const out: Record<string, ParameterSpec> = {
    'embeddings.word_embeddings.weight': { shape: [c.vocab_size, h], init: 'normal' },
    ...(c.type_vocab_size > 0
      ? { 'embeddings.token_type_embeddings.weight': { shape: [c.type_vocab_size, h], init: 'normal' } }
      : {}),
    ...prefixed('embeddings.LayerNorm', ln(h)),
  };
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    Object.assign(
      out,
      prefixed(`${p}.attention.qkv_proj`, dense(3 * h, h)),
      prefixed(`${p}.attention.o_proj`, dense(h, h)),
      prefixed(`${p}.attn_ln`, ln(h)),
      prefixed(`${p}.mlp.up_gate_proj`, dense(2 * I, h, false)),
      prefixed(`${p}.mlp.down_proj`, dense(h, I)),
      prefixed(`${p}.mlp_ln`, ln(h)),
    );
  }
  return out;
}
