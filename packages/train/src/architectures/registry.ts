/**
 * The Hugging Face `config.json` fields the exporters read, as zod schemas, one per supported
 * `model_type`: `bert` (BertModel), `xlm-roberta` (XLMRobertaModel) and `new` (Alibaba's gte
 * "NewModel", e.g. Alibaba-NLP/gte-multilingual-base). Unknown keys are kept, so a config
 * round-trips through `exportHuggingFace` unchanged. Features the exporters do not implement
 * (other activations, other RoPE scalings, unpacked QKV, logn attention scaling) are refused
 * here rather than exported wrongly.
 */
import { DataError, describeZodIssues } from '@dv/core';
import { z } from 'zod';

const positiveInt = z.number().int().positive();

const common = {
  vocab_size: positiveInt,
  hidden_size: positiveInt,
  num_hidden_layers: positiveInt,
  num_attention_heads: positiveInt,
  intermediate_size: positiveInt,
  hidden_act: z.enum(['gelu', 'relu', 'gelu_new', 'gelu_pytorch_tanh']),
  layer_norm_eps: z.number().positive(),
  max_position_embeddings: positiveInt,
  type_vocab_size: z.number().int().nonnegative(),
};

export const bertConfigSchema = z.looseObject({
  ...common,
  model_type: z.literal('bert'),
  pad_token_id: z.number().int().nonnegative().default(0),
  position_embedding_type: z.literal('absolute').optional(),
});

export const xlmRobertaConfigSchema = z.looseObject({
  ...common,
  model_type: z.literal('xlm-roberta'),
  pad_token_id: z.number().int().nonnegative(),
  position_embedding_type: z.literal('absolute').optional(),
});

export const gteNewConfigSchema = z.looseObject({
  ...common,
  model_type: z.literal('new'),
  pad_token_id: z.number().int().nonnegative().default(1),
  position_embedding_type: z.literal('rope'),
  rope_theta: z.number().positive().default(10000),
  rope_scaling: z
    .object({ type: z.literal('ntk'), factor: z.number().positive(), mixed_b: z.null().optional() })
    .nullable()
    .default(null),
  pack_qkv: z.literal(true).default(true),
  logn_attention_scale: z.literal(false).default(false),
  layer_norm_type: z.literal('layer_norm').default('layer_norm'),
});

export const encoderConfigSchema = z
  .discriminatedUnion('model_type', [bertConfigSchema, xlmRobertaConfigSchema, gteNewConfigSchema])
  .refine((c) => c.hidden_size % c.num_attention_heads === 0, {
    message: 'hidden_size must be a multiple of num_attention_heads',
  });

export type EncoderConfig = z.infer<typeof encoderConfigSchema>;
export type EncoderModelType = EncoderConfig['model_type'];

/** Validates a parsed config.json; `source` names it in the error. */
export function parseEncoderConfig(json: unknown, source = 'config.json'): EncoderConfig {
  const r = encoderConfigSchema.safeParse(json);
  if (!r.success)
    throw new DataError(
      `unsupported or invalid encoder config: ${describeZodIssues(r.error.issues)}`,
      source,
    );
  return r.data;
}
