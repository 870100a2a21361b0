/**
 * The bytes of a one-node ONNX model, `scores = Gemm(queries, docs, transB=1)`, i.e.
 * queries [m, k] x docs [n, k]^T -> [m, n] in float32, with symbolic m, n and k. Lets exact
 * search run its matrix products in onnxruntime's multi-threaded sgemm (MLAS) instead of a
 * JavaScript loop. Hand-encoded protobuf (onnx.proto field numbers), IR 8, opset 17.
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

/** ValueInfoProto for a float tensor with symbolic dims. */
function floatInput(name: string, dims: string[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, str(2, d)));
  const tensorType = [...int(1, 1), ...bytes(2, shape)]; // elem_type FLOAT = 1
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

export function gemmOnnxModel(): Uint8Array {
  const transB = [...str(1, 'transB'), ...int(20, 2), ...int(3, 1)]; // type INT = 2, i = 1
  const node = [
    ...str(1, 'queries'),
    ...str(1, 'docs'),
    ...str(2, 'scores'),
    ...str(3, 'gemm'),
    ...str(4, 'Gemm'),
    ...bytes(5, transB),
  ];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'dv_exact_scores'),
    ...bytes(11, floatInput('queries', ['m', 'k'])),
    ...bytes(11, floatInput('docs', ['n', 'k'])),
    ...bytes(12, floatInput('scores', ['m', 'n'])),
  ];
  const opset = [...str(1, ''), ...int(2, 17)];
  return Uint8Array.from([...int(1, 8), ...str(2, '@dv/eval'), ...bytes(7, graph), ...bytes(8, opset)]);
}
