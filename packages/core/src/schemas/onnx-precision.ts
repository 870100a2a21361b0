/**
 * The precisions a model folder's ONNX graph comes in, and where each lives. `fp32`: float32
 * weights and arithmetic, `onnx/model.onnx` (the Hugging Face / optimum layout). `int8`: the
 * Linear weights as symmetric per-column int8 with ONNX Runtime's dynamic quantization (uint8
 * activations quantized per tensor at run time; @dv/train onnx-layers.ts), in
 * `onnx/model_qint8.onnx`, which is about a quarter of the float32 file and, on CPUs with
 * AVX512-VNNI / AVX-VNNI, runs the projections in integer dot products. The exporters write
 * these paths and the ONNX encoder reads them: the one declaration of both.
 * A CLS-pooled export also writes, per precision, the embedding-only graph whose last layer
 * computes position 0 only (@dv/train encoder-graph.ts `clsOnly`; `onnxClsModelFile`:
 * `onnx/model_cls.onnx`, `onnx/model_qint8_cls.onnx`): the same embeddings for less work, which
 * the ONNX encoder prefers for CLS pooling; `onnx/model.onnx` stays the standard full-sequence
 * graph other tools load.
 */
import { z } from 'zod';

export const OnnxPrecision = z.enum(['fp32', 'int8']);
export type OnnxPrecision = z.infer<typeof OnnxPrecision>;

/** The graph file of `precision`, relative to the model folder. */
export function onnxModelFile(precision: OnnxPrecision): string {
  return precision === 'int8' ? 'onnx/model_qint8.onnx' : 'onnx/model.onnx';
}

/** The CLS embedding graph of `precision` in a CLS-pooled folder (see the file comment). */
export function onnxClsModelFile(precision: OnnxPrecision): string {
  return precision === 'int8' ? 'onnx/model_qint8_cls.onnx' : 'onnx/model_cls.onnx';
}
