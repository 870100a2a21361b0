/**
 * XLMRobertaModel's forward pass: BERT's (../bert/forward.ts), with position ids offset by the
 * padding id, `cumsum(ids != pad) * (ids != pad) + pad` (transformers
 * `create_position_ids_from_input_ids`), looked up in the position table.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../../backend/tf.js';
import { embeddingLookup } from '../../internal/tf-layers.js';
import { bertFamilyForward, type PositionEmbeddings } from '../bert/forward.js';
import type { EncoderArchitecture } from '../encoder-architecture.js';
import type { XlmRobertaConfig } from './config.js';

/** XLM-R position ids: cumsum(ids != pad) * (ids != pad) + pad. */
function xlmRobertaPositionIds(c: XlmRobertaConfig, inputIds: Tensor): Tensor {
  const notPad = tf.cast(tf.notEqual(inputIds, c.pad_token_id), 'float32');
  return tf.cast(tf.add(tf.mul(tf.cumsum(notPad, 1), notPad), c.pad_token_id), 'int32');
}

/** Position embeddings [B, T, H]: a gather at the padding-offset ids. */
const xlmRobertaPositionEmbeddings: PositionEmbeddings<XlmRobertaConfig> = (c, table, inputIds) =>
  embeddingLookup(table, xlmRobertaPositionIds(c, inputIds));

export const xlmRobertaForward: EncoderArchitecture<XlmRobertaConfig>['forward'] = (...args) =>
  bertFamilyForward(xlmRobertaPositionEmbeddings, ...args);
