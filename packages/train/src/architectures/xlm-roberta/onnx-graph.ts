/**
 * XLMRobertaModel as an ONNX graph: BERT's (../bert/onnx-graph.ts), with position ids
 * `cumsum(ids != pad) * (ids != pad) + pad` (transformers `create_position_ids_from_input_ids`)
 * gathered from the position table, and token type 0 added (no `token_type_ids` input).
 */
import { onnxDataType } from '@dv/core';
import { bertFamilyOnnxGraph, type OnnxPositionEmbeddings } from '../bert/onnx-graph.js';
import type { EncoderArchitecture } from '../encoder-architecture.js';
import type { XlmRobertaConfig } from './config.js';

const xlmRobertaPositionEmbeddings: OnnxPositionEmbeddings<XlmRobertaConfig> = (g, c, table, inp) => {
  const b = g.b;
  const pad = b.int64Init('padding_idx', [], [c.pad_token_id]);
  const notPad = b.op('Cast', [b.op('Not', [b.op('Equal', [inp.inputIds, pad])])], {
    to: { i: onnxDataType.INT64 },
  });
  const ids = b.op('Add', [
    b.op('Mul', [b.op('CumSum', [notPad, b.int64Init('axis1', [], [1])]), notPad]),
    pad,
  ]);
  return b.op('Gather', [table, ids]);
};

export const xlmRobertaOnnxGraph: EncoderArchitecture<XlmRobertaConfig>['onnxGraph'] = (...args) =>
  bertFamilyOnnxGraph(xlmRobertaPositionEmbeddings, ...args);
