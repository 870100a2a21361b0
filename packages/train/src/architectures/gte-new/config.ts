/**
 * config.json of `model_type: new` (Alibaba's gte "NewModel", e.g.
 * Alibaba-NLP/gte-multilingual-base): rotary positions with optional NTK scaling, packed QKV.
 * Features not implemented here (other RoPE scalings, unpacked QKV, logn attention scaling,
 * other norms) are refused rather than run or exported wrongly.
 */
import { z } from 'zod';
import { encoderConfigFields } from '../shared/config-fields.js';

export const gteNewConfigSchema = z.looseObject({
  ...encoderConfigFields,
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

export type GteNewConfig = z.infer<typeof gteNewConfigSchema>;
