/**
 * BertModel as an ONNX graph (eval mode, no dropout), shared with XLM-RoBERTa, which differs
 * only in its position ids: word + position + token-type embeddings, LayerNorm; per layer
 * self-attention softmax(QK^T/sqrt(d) + maskBias)V, dense, residual + LayerNorm, FFN
 * act(xW1+b1)W2+b2, residual + LayerNorm (post-LN). Without a `token_type_ids` input, token
 * type 0 is added. The pooler is tanh(W h[:,0] + b).
 */

import type { EncoderArchitecture, OnnxInputs } from '../encoder-architecture.js';
import type { EncoderConfigBase } from '../shared/config-fields.js';
import type { OnnxGraphOps } from '../shared/onnx-graph-ops.js';
import type { BertConfig } from './config.js';

/** Position embeddings from the table value `table` for the inputs: [B, S, H] or [S, H]. */
export type OnnxPositionEmbeddings<C> = (g: OnnxGraphOps, c: C, table: string, inputs: OnnxInputs) => string;

/** Rows 0..S-1 of the table, broadcast over the batch. */
export const onnxAbsolutePositionEmbeddings: OnnxPositionEmbeddings<EncoderConfigBase> = (
  g,
  _c,
  table,
  inp,
) => g.b.op('Slice', [table, g.b.ints([0], 'zero'), g.sequenceLength(inp.inputIds), g.b.ints([0], 'axis0')]);

function bertEmbeddings<C extends EncoderConfigBase>(
  g: OnnxGraphOps,
  c: C,
  inp: OnnxInputs,
  positionEmbeddings: OnnxPositionEmbeddings<C>,
): string {
  const { b, hidden: h } = g;
  const words = g.wordEmbeddings(inp.inputIds);
  const table = b.floatInit(
    'embeddings.position_embeddings.weight',
    [c.max_position_embeddings, h],
    g.w('embeddings.position_embeddings.weight', [c.max_position_embeddings, h]),
  );
  const positions = positionEmbeddings(g, c, table, inp);
  const typeTable = g.w('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h]);
  const types = inp.tokenTypeIds
    ? b.op('Gather', [
        b.floatInit('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h], typeTable),
        inp.tokenTypeIds,
      ])
    : b.floatInit('token_type_0', [h], typeTable.slice(0, h));
  return g.layerNorm(b.op('Add', [b.op('Add', [words, positions]), types]), 'embeddings.LayerNorm');
}

function bertLayer(g: OnnxGraphOps, x: string, i: number, mask: string, maskBias: string): string {
  const { hidden: h, config: c } = g;
  const p = `encoder.layer.${i}`;
  const ctx = g.selfAttention(x, `${p}.attention.self`, mask, maskBias);
  const x1 = g.linearResidualLayerNorm(
    ctx,
    `${p}.attention.output.dense`,
    h,
    h,
    x,
    `${p}.attention.output.LayerNorm`,
  );
  const inter = g.linearActivation(x1, `${p}.intermediate.dense`, h, c.intermediate_size);
  return g.linearResidualLayerNorm(
    inter,
    `${p}.output.dense`,
    c.intermediate_size,
    h,
    x1,
    `${p}.output.LayerNorm`,
  );
}

/** The BERT-family graph with the given position embeddings; returns the last hidden state. */
export function bertFamilyOnnxGraph<C extends EncoderConfigBase>(
  positionEmbeddings: OnnxPositionEmbeddings<C>,
  ...[g, c, inp, maskBias]: Parameters<EncoderArchitecture<C>['onnxGraph']>
): string {
  let x = bertEmbeddings(g, c, inp, positionEmbeddings);
  for (let i = 0; i < c.num_hidden_layers; i++) x = bertLayer(g, x, i, inp.attentionMask, maskBias);
  return x;
}

export const bertOnnxGraph: EncoderArchitecture<BertConfig>['onnxGraph'] = (...args) =>
  bertFamilyOnnxGraph(onnxAbsolutePositionEmbeddings, ...args);

/** The pooler tanh(W cls + b) on [B, H]. */
export function bertOnnxPooler(g: OnnxGraphOps, cls: string): string {
  return g.b.op('Tanh', [g.linear(cls, 'pooler.dense', g.hidden, g.hidden)]);
}
