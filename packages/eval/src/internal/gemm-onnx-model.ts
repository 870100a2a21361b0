/**
 * The bytes of a two-node ONNX model for exact search blocks:
 *   scores = Gemm(queries, docs, transB=1)        queries [m, d] x docs [n, d]^T -> [m, n]
 *   values, indices = TopK(scores, top, axis=-1)  the `top` best per row, sorted; ONNX TopK
 *                                                 (opset >= 11) puts the lower index first on ties
 * float32 with symbolic sizes; `top` is an int64 tensor of shape [1]. Lets exact search run its
 * products in onnxruntime's multi-threaded sgemm (MLAS) and select inside the runtime instead
 * of scanning every score in JavaScript. Hand-encoded protobuf (onnx.proto field numbers),
 * IR 8, opset 17.
 */

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

const VARINT = 0;
const LEN = 2;
const tag = (field: number, wire: number) => varint(field * 8 + wire);
const int = (field: number, n: number) => [...tag(field, VARINT), ...varint(n)];
const bytes = (field: number, b: number[]) => [...tag(field, LEN), ...varint(b.length), ...b];
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);

const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto for a tensor; string dims are symbolic, numbers fixed. */
function tensorInfo(name: string, elemType: number, dims: Array<string | number>): number[] {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  const tensorType = [...int(1, elemType), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

export function gemmTopKOnnxModel(): Uint8Array {
  const transB = [...str(1, 'transB'), ...int(20, 2), ...int(3, 1)]; // type INT = 2, i = 1
  const gemm = [
    ...str(1, 'queries'),
    ...str(1, 'docs'),
    ...str(2, 'scores'),
    ...str(3, 'gemm'),
    ...str(4, 'Gemm'),
    ...bytes(5, transB),
  ];
  const topk = [
    ...str(1, 'scores'),
    ...str(1, 'top'),
    ...str(2, 'values'),
    ...str(2, 'indices'),
    ...str(3, 'topk'),
    ...str(4, 'TopK'),
  ];
  const graph = [
    ...bytes(1, gemm),
    ...bytes(1, topk),
    ...str(2, 'dv_exact_top_k'),
    ...bytes(11, tensorInfo('queries', FLOAT, ['m', 'd'])),
    ...bytes(11, tensorInfo('docs', FLOAT, ['n', 'd'])),
    ...bytes(11, tensorInfo('top', INT64, [1])),
    ...bytes(12, tensorInfo('values', FLOAT, ['m', 't'])),
    ...bytes(12, tensorInfo('indices', INT64, ['m', 't'])),
  ];
  const opset = [...str(1, ''), ...int(2, 17)];
  return Uint8Array.from([...int(1, 8), ...str(2, '@dv/eval'), ...bytes(7, graph), ...bytes(8, opset)]);
}
