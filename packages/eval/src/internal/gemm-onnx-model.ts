/**
 * The bytes of a two-node ONNX model for exact search blocks:
 *   scores = Gemm(queries, docs, transB=1)        queries [m, d] x docs [n, d]^T -> [m, n]
 *   values, indices = TopK(scores, top, axis=-1)  the `top` best per row, sorted; ONNX TopK
 *                                                 (opset >= 11) puts the lower index first on ties
 * float32 with symbolic sizes; `top` is an int64 tensor of shape [1]. Lets exact search run its
 * products in onnxruntime's multi-threaded sgemm (MLAS) and select inside the runtime instead
 * of scanning every score in JavaScript. Encoded by @dv/core's ONNX writer (the one the encoder
 * export uses), IR 8, opset 17.
 */
import { encodeOnnxModel, onnxDataType } from '@dv/core';

export function gemmTopKOnnxModel(): Uint8Array {
  const { FLOAT, INT64 } = onnxDataType;
  const chunks = encodeOnnxModel({
    irVersion: 8,
    opsetVersion: 17,
    producerName: '@dv/eval',
    producerVersion: '0.1.0',
    graph: {
      name: 'dv_exact_top_k',
      nodes: [
        {
          opType: 'Gemm',
          name: 'gemm',
          inputs: ['queries', 'docs'],
          outputs: ['scores'],
          attributes: { transB: { i: 1 } },
        },
        { opType: 'TopK', name: 'topk', inputs: ['scores', 'top'], outputs: ['values', 'indices'] },
      ],
      initializers: [],
      inputs: [
        { name: 'queries', elemType: FLOAT, shape: ['m', 'd'] },
        { name: 'docs', elemType: FLOAT, shape: ['n', 'd'] },
        { name: 'top', elemType: INT64, shape: [1] },
      ],
      outputs: [
        { name: 'values', elemType: FLOAT, shape: ['m', 't'] },
        { name: 'indices', elemType: INT64, shape: ['m', 't'] },
      ],
    },
  });
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
