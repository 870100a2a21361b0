// Deterministic random weights for any supported config (tests that must not need
// data-external): N(0, 0.2^2) matrices, LayerNorm weight 1 + N(0, 0.1^2), biases N(0, 0.1^2).
import { createRng } from '@dv/core';
import type { EncoderConfig } from '../../architectures/registry.js';
import { encoderWeightShapes } from '../encoder-weight-shapes.js';
import type { EncoderWeight } from '../encoder-weights.js';

export function randomEncoderWeights(config: EncoderConfig, seed = 1): Map<string, EncoderWeight> {
  const rng = createRng(seed);
  const out = new Map<string, EncoderWeight>();
  for (const [name, spec] of encoderWeightShapes(config)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const isNormWeight = spec.shape.length === 1 && name.endsWith('.weight');
    const scale = spec.shape.length === 1 ? 0.1 : 0.2;
    const data = Float32Array.from({ length: n }, () => (isNormWeight ? 1 : 0) + scale * rng.normal());
    out.set(name, { shape: spec.shape, data });
  }
  return out;
}

/** Small configs of each architecture (hidden 32, 2 layers), vocab `vocab`. */
export function miniConfigs(vocab = 120): Record<'bert' | 'xlm-roberta' | 'new', Record<string, unknown>> {
  const common = {
    vocab_size: vocab,
    hidden_size: 32,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 48,
    hidden_act: 'gelu',
    max_position_embeddings: 66,
  };
  return {
    bert: { ...common, model_type: 'bert', layer_norm_eps: 1e-12, type_vocab_size: 2, pad_token_id: 0 },
    'xlm-roberta': {
      ...common,
      model_type: 'xlm-roberta',
      layer_norm_eps: 1e-5,
      type_vocab_size: 1,
      pad_token_id: 1,
    },
    new: {
      ...common,
      model_type: 'new',
      layer_norm_eps: 1e-12,
      type_vocab_size: 1,
      pad_token_id: 1,
      position_embedding_type: 'rope',
      rope_theta: 20000,
      rope_scaling: { type: 'ntk', factor: 8 },
    },
  };
}
