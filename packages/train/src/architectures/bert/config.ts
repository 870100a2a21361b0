/** config.json of `model_type: bert` (transformers BertModel): absolute learned positions only. */
import { z } from 'zod';
import { encoderConfigFields } from '../shared/config-fields.js';

export const bertConfigSchema = z.looseObject({
  ...encoderConfigFields,
  model_type: z.literal('bert'),
  pad_token_id: z.number().int().nonnegative().default(0),
  position_embedding_type: z.literal('absolute').optional(),
});

export type BertConfig = z.infer<typeof bertConfigSchema>;
