/**
 * The parameter names and shapes each architecture's exporters read, in Hugging Face naming
 * without the base-model prefix: the checklist a trainer's weights must satisfy. Optional
 * tensors (the BERT/XLM-R pooler) are listed with `optional: true`.
 */
import type { EncoderConfig } from '../architectures/registry.js';

export interface WeightSpec {
  readonly shape: readonly number[];
  readonly optional?: boolean;
}

export function encoderWeightShapes(config: EncoderConfig): Map<string, WeightSpec> {
  const h = config.hidden_size;
  const I = config.intermediate_size;
  const out = new Map<string, WeightSpec>();
  const add = (name: string, shape: number[], optional = false) =>
    out.set(name, optional ? { shape, optional } : { shape });
  const linear = (name: string, outDim: number, inDim: number, bias = true, optional = false) => {
    add(`${name}.weight`, [outDim, inDim], optional);
    if (bias) add(`${name}.bias`, [outDim], optional);
  };
  const norm = (name: string) => {
    add(`${name}.weight`, [h]);
    add(`${name}.bias`, [h]);
  };
  add('embeddings.word_embeddings.weight', [config.vocab_size, h]);
  if (config.model_type !== 'new')
    add('embeddings.position_embeddings.weight', [config.max_position_embeddings, h]);
  if (config.model_type !== 'new' || config.type_vocab_size > 0) {
    add('embeddings.token_type_embeddings.weight', [config.type_vocab_size, h]);
  }
  norm('embeddings.LayerNorm');
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    if (config.model_type === 'new') {
      linear(`${p}.attention.qkv_proj`, 3 * h, h);
      linear(`${p}.attention.o_proj`, h, h);
      norm(`${p}.attn_ln`);
      linear(`${p}.mlp.up_gate_proj`, 2 * I, h, false);
      linear(`${p}.mlp.down_proj`, h, I);
      norm(`${p}.mlp_ln`);
    } else {
      for (const m of ['query', 'key', 'value']) linear(`${p}.attention.self.${m}`, h, h);
      linear(`${p}.attention.output.dense`, h, h);
      norm(`${p}.attention.output.LayerNorm`);
      linear(`${p}.intermediate.dense`, I, h);
      linear(`${p}.output.dense`, h, I);
      norm(`${p}.output.LayerNorm`);
    }
  }
  if (config.model_type !== 'new') linear('pooler.dense', h, h, true, true);
  return out;
}
