/** config.json of `model_type: xlm-roberta` (XLMRobertaModel): absolute positions offset by the pad id. */
import { z } from 'zod';
import { encoderConfigFields } from '../shared/config-fields.js';

export const xlmRobertaConfigSchema = z.looseObject({
  ...encoderConfigFields,
  model_type: z.literal('xlm-roberta'),
  pad_token_id: z.number().int().nonnegative(),
  position_embedding_type: z.literal('absolute').optional(),
});

export type XlmRobertaConfig = z.infer<typeof xlmRobertaConfigSchema>;
