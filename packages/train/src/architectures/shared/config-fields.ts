/**
 * The config.json fields every architecture reads (zod), spread into each module's schema.
 * Unknown keys are kept by the module schemas (`z.looseObject`), so a config round-trips
 * through the exporters unchanged.
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const encoderConfigFields = {
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

/** The part of a parsed config that generic code (shared layers, exporters) reads. */
export type EncoderConfigBase = z.infer<z.ZodObject<typeof encoderConfigFields>> & {
  readonly model_type: string;
  readonly pad_token_id: number;
};
