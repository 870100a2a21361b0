/**
 * Symmetric per-column int8 quantization of a weight matrix, as ONNX Runtime's
 * `quantize_dynamic(..., weight_type=QInt8, per_channel=True)` quantizes a MatMul weight
 * (onnxruntime/python/tools/quantization/quant_utils.py: `compute_scale_zp` with
 * `symmetric=True` over [-127, 127], then `quantize_nparray`). For column n of W [rows, cols]:
 *
 *   absmax_n = max_k |W[k, n]|
 *   scale_n  = float32(2 absmax_n / 254), or 1 when that is below float32's smallest normal
 *   q[k, n]  = clip(roundHalfEven(float32(W[k, n] / scale_n)), -128, 127), zero point 0
 *
 * so W ~= q * scale_n column by column. `DynamicQuantizeMatMul` / `QAttention` (ONNX Runtime
 * contrib ops) take q, the scales and a zero-point vector of zeros.
 */
export interface Int8Columns {
  /** Row-major [rows, cols]. */
  readonly data: Int8Array;
  /** One scale per column. */
  readonly scale: Float32Array;
}

const float32Tiny = 1.1754943508222875e-38;

/** numpy.round: halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export function quantizeInt8PerColumn(w: Float32Array, rows: number, cols: number): Int8Columns {
  if (w.length !== rows * cols)
    throw new Error(`quantizeInt8PerColumn: ${w.length} values for [${rows}, ${cols}]`);
  const absmax = new Float32Array(cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const a = Math.abs(w[r * cols + c]!);
      if (a > absmax[c]!) absmax[c] = a;
    }
  const scale = new Float32Array(cols);
  for (let c = 0; c < cols; c++) {
    const s = (2 * absmax[c]!) / 254;
    scale[c] = s < float32Tiny ? 1 : s;
  }
  const data = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const q = roundHalfEven(Math.fround(w[r * cols + c]! / scale[c]!));
      data[r * cols + c] = Math.max(-128, Math.min(127, q));
    }
  return { data, scale };
}
