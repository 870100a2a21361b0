/**
 * BertModel's parameters (also XLM-RoBERTa's: the same module with other position ids): word,
 * position and token-type embeddings, LayerNorm; per layer Q, K, V, attention output, its
 * LayerNorm, intermediate and output dense layers, output LayerNorm; the pooler, which the
 * sentence embedding never reaches (kept and exported, not trained).
 */
import type { ParameterSpec } from '../encoder-architecture.js';
import type { EncoderConfigBase } from '../shared/config-fields.js';
import { linearSpecs as dense, layerNormSpecs as ln, prefixed } from '../shared/parameter-specs.js';

export function bertParameters(c: EncoderConfigBase): Record<string, ParameterSpec> {
  const h = c.hidden_size;
  const out: Record<string, ParameterSpec> = {
    'embeddings.word_embeddings.weight': { shape: [c.vocab_size, h], init: 'normal' },
    'embeddings.position_embeddings.weight': { shape: [c.max_position_embeddings, h], init: 'normal' },
    'embeddings.token_type_embeddings.weight': { shape: [c.type_vocab_size, h], init: 'normal' },
    ...prefixed('embeddings.LayerNorm', ln(h)),
  };
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    Object.assign(
      out,
      prefixed(`${p}.attention.self.query`, dense(h, h)),
      prefixed(`${p}.attention.self.key`, dense(h, h)),
      prefixed(`${p}.attention.self.value`, dense(h, h)),
      prefixed(`${p}.attention.output.dense`, dense(h, h)),
      prefixed(`${p}.attention.output.LayerNorm`, ln(h)),
      prefixed(`${p}.intermediate.dense`, dense(c.intermediate_size, h)),
      prefixed(`${p}.output.dense`, dense(h, c.intermediate_size)),
      prefixed(`${p}.output.LayerNorm`, ln(h)),
    );
  }
  out['pooler.dense.weight'] = { shape: [h, h], init: 'normal', trainable: false };
  out['pooler.dense.bias'] = { shape: [h], init: 'zeros', trainable: false };
  return out;
}
