/**
 * BertModel's forward pass (transformers, eval mode), shared with XLM-RoBERTa, which differs
 * only in its position ids: word + position + token-type embeddings, LayerNorm; post-LN
 * layers: self-attention, dense, residual + LayerNorm, FFN act(x W1 + b1) W2 + b2,
 * residual + LayerNorm. The pooler tanh(W h[:,0] + b) is `bertPoolerForward`.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../../backend/tf.js';
import {
  attention,
  attentionMaskBias,
  embeddingLookup,
  layerNorm,
  linear,
  linearAct,
  mergeHeads,
  packedAttention,
  splitHeads,
} from '../../internal/tf-layers.js';
import type { EncoderArchitecture, Params } from '../encoder-architecture.js';
import { clsRows } from '../shared/cls-rows.js';
import type { EncoderConfigBase } from '../shared/config-fields.js';
import type { BertConfig } from './config.js';

/** Position embeddings for `inputIds` from the table: [B, T, H] or [1, T, H] (broadcast). */
export type PositionEmbeddings<C> = (c: C, table: Tensor, inputIds: Tensor) => Tensor;

/**
 * BERT's positions 0..T-1 are the table's first T rows: a slice [1, T, H] broadcast over the
 * batch (its gradient is a pad), instead of a [B, T, H] gather and scatter-add.
 */
export const absolutePositionEmbeddings: PositionEmbeddings<EncoderConfigBase> = (_c, table, inputIds) => {
  const t = inputIds.shape[1]!;
  return tf.slice(table, [0, 0], [t, table.shape[1]!]).expandDims(0);
};

/**
 * The BERT-family forward pass with the given position embeddings. Embedding rows [B*T, H] ->
 * the encoder stack. With `rows: 'cls'` the last layer computes only what position 0's output
 * depends on: its query, but every key and value; the result is then [B*1, H] and equal to the
 * full pass's rows at position 0 (used for CLS pooling, where the other positions' last-layer
 * outputs are never read).
 */
export function bertFamilyForward<C extends EncoderConfigBase>(
  positionEmbeddings: PositionEmbeddings<C>,
  ...[c, p, inp, dropout, rows]: Parameters<EncoderArchitecture<C>['forward']>
): Tensor {
  const [b, t] = inp.inputIds.shape as [number, number];
  const h = c.hidden_size;
  const types = inp.tokenTypeIds ?? tf.zerosLike(inp.inputIds);
  let x = tf
    .add(
      tf.add(
        embeddingLookup(p('embeddings.word_embeddings.weight'), inp.inputIds),
        positionEmbeddings(c, p('embeddings.position_embeddings.weight'), inp.inputIds),
      ),
      embeddingLookup(p('embeddings.token_type_embeddings.weight'), types),
    )
    .reshape([b * t, h]);
  x = dropout(
    layerNorm(x, p('embeddings.LayerNorm.weight'), p('embeddings.LayerNorm.bias'), c.layer_norm_eps),
  );
  const bias = attentionMaskBias(inp.attentionMask);
  const heads = c.num_attention_heads;
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const l = (n: string) => p(`encoder.layer.${i}.${n}`);
    const w = (n: string) => l(`attention.self.${n}.weight`);
    const wb = (n: string) => l(`attention.self.${n}.bias`);
    // Q, K and V in one GEMM over the packed [3H, H] weight (its gradient is split back).
    const clsOnly = rows === 'cls' && i === c.num_hidden_layers - 1;
    let ctx: Tensor;
    let residual = x;
    if (clsOnly) {
      residual = clsRows(x, b);
      const [q] = splitHeads(linear(residual, w('query'), wb('query')), b, heads) as [Tensor];
      const kv = linear(x, tf.concat([w('key'), w('value')], 0), tf.concat([wb('key'), wb('value')], 0));
      const [k, v] = splitHeads(kv, b, heads, 2) as [Tensor, Tensor];
      ctx = mergeHeads(attention(q, k, v, bias));
    } else {
      const packed = tf.concat([w('query'), w('key'), w('value')], 0);
      const qkv = linear(x, packed, tf.concat([wb('query'), wb('key'), wb('value')], 0));
      ctx = packedAttention(qkv, bias, b, heads);
    }
    const a = dropout(linear(ctx, l('attention.output.dense.weight'), l('attention.output.dense.bias')));
    const x1 = layerNorm(
      tf.add(a, residual),
      l('attention.output.LayerNorm.weight'),
      l('attention.output.LayerNorm.bias'),
      c.layer_norm_eps,
    );
    const inter = linearAct(x1, l('intermediate.dense.weight'), l('intermediate.dense.bias'), c.hidden_act);
    const out = dropout(linear(inter, l('output.dense.weight'), l('output.dense.bias')));
    x = layerNorm(
      tf.add(out, x1),
      l('output.LayerNorm.weight'),
      l('output.LayerNorm.bias'),
      c.layer_norm_eps,
    );
  }
  return x.reshape([b, x.shape[0]! / b, h]);
}

export const bertForward: EncoderArchitecture<BertConfig>['forward'] = (...args) =>
  bertFamilyForward(absolutePositionEmbeddings, ...args);

/** BertModel's pooler tanh(W h[:,0] + b) on CLS rows [B, H]. */
export function bertPoolerForward(p: Params, cls: Tensor): Tensor {
  return tf.tanh(
    tf.add(
      tf.matMul(cls as tf.Tensor2D, p('pooler.dense.weight') as tf.Tensor2D, false, true),
      p('pooler.dense.bias'),
    ),
  );
}
