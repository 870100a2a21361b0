/**
 * Small-config factory for the mini profile's backbones: one BERT-like and one gte-like
 * encoder, so the paper's two-backbone finding can be replicated in miniature (docs/architecture.md,
 * "mini"). Each entry is a complete Hugging Face config (everything the exporters and
 * transformers read), randomly initialised the BERT way: N(0, initializer_range) for matrices
 * and embeddings, LayerNorm weight 1 and bias 0, other biases 0, from a seeded stream.
 *
 * Sizes follow the benchmark configs: 2 layers / hidden 128 by default (config A), up to
 * 4 layers / hidden 256 (config B) through `overrides`.
 */
import { createRng, type MINI_BACKBONES } from '@dv/core';

type MiniBackbone = (typeof MINI_BACKBONES)[number];

import { parseEncoderConfig } from '../architectures/registry.js';
import type { EncoderWeight } from '../export/encoder-weights.js';
import { TransformerEncoder } from './transformer-encoder.js';

const shared = {
  hidden_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  intermediate_size: 512,
  hidden_act: 'gelu',
  hidden_dropout_prob: 0.1,
  attention_probs_dropout_prob: 0,
  layer_norm_eps: 1e-12,
  initializer_range: 0.02,
  max_position_embeddings: 512,
} as const;

export const miniBackbones = Object.freeze({
  /** BERT layout (BertModel): absolute positions, two token types, [PAD] = 0. */
  'mini-bert': {
    ...shared,
    architectures: ['BertModel'],
    model_type: 'bert',
    type_vocab_size: 2,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
  },
  /**
   * gte NewModel layout (Alibaba-NLP/new-impl): RoPE (theta 10000, NTK factor 2 as
   * gte-multilingual-base's rope_scaling type), packed QKV, gated FFN, post-LN; the gated FFN
   * has two input matrices, so its intermediate size is 2/3 of BERT's to match parameters.
   */
  'mini-gte': {
    ...shared,
    intermediate_size: 344,
    architectures: ['NewModel'],
    model_type: 'new',
    auto_map: {
      AutoConfig: 'Alibaba-NLP/new-impl--configuration.NewConfig',
      AutoModel: 'Alibaba-NLP/new-impl--modeling.NewModel',
    },
    type_vocab_size: 1,
    pad_token_id: 0,
    position_embedding_type: 'rope',
    rope_theta: 10000,
    rope_scaling: { type: 'ntk', factor: 2 },
    pack_qkv: true,
    layer_norm_type: 'layer_norm',
    logn_attention_scale: false,
    logn_attention_clip1: false,
    unpad_inputs: false,
    use_memory_efficient_attention: false,
  },
} as const satisfies Record<MiniBackbone, Record<string, unknown>>);

export type MiniBackboneName = keyof typeof miniBackbones;

export interface MiniEncoderOptions {
  vocabSize: number;
  seed: number;
  /** Any config.json field, e.g. `{ num_hidden_layers: 4, hidden_size: 256, intermediate_size: 1024 }`. */
  overrides?: Record<string, unknown>;
}

/** The full config.json of a mini backbone. */
export function miniBackboneConfig(name: MiniBackboneName, options: Omit<MiniEncoderOptions, 'seed'>) {
  const base = miniBackbones[name];
  if (!base) throw new Error(`unknown mini backbone '${name}': use ${Object.keys(miniBackbones).join(', ')}`);
  return { ...base, vocab_size: options.vocabSize, ...options.overrides };
}

/** A freshly initialised mini encoder. Same name, options and seed: same weights. */
export function createMiniEncoder(name: MiniBackboneName, options: MiniEncoderOptions): TransformerEncoder {
  const config = miniBackboneConfig(name, options);
  const parsed = parseEncoderConfig(config, `mini backbone ${name}`);
  const std = (config as { initializer_range?: number }).initializer_range ?? 0.02;
  const weights = new Map<string, EncoderWeight>();
  for (const [param, spec] of Object.entries(TransformerEncoder.parameterSpecs(parsed))) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    if (spec.init === 'ones') data.fill(1);
    else if (spec.init === 'normal') {
      // One stream per parameter, so adding a layer does not reshuffle the others.
      const rng = createRng(options.seed).fork(param);
      for (let i = 0; i < n; i++) data[i] = rng.normal() * std;
    }
    weights.set(param, { shape: spec.shape, data });
  }
  return TransformerEncoder.fromWeights(config, weights, `mini backbone ${name}`);
}
