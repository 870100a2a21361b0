/**
 * The ONNX graph of an encoder, built from a Hugging Face config and plain weights: graph
 * inputs, the attention-mask bias, the architecture's layers (its module's `onnxGraph`, found
 * in the registry: ../../architectures/), pooling and outputs. Each architecture mirrors the
 * reference PyTorch forward pass in eval mode (no dropout).
 *
 * The mask bias is `(1 - attention_mask) * finfo(float32).min` broadcast over heads and
 * queries, as transformers' `get_extended_attention_mask`. Pooling: `cls` (token 0) or `mean`
 * (sum of h * mask / max(sum mask, 1e-9), as sentence-transformers), then optionally
 * `x / max(||x||_2, 1e-12)` (torch F.normalize). With `fusedOps` (default) the layers use ONNX
 * Runtime's fused contrib operators, which take the int32 mask itself instead of the bias. Architectures with a pooler (BERT/XLM-R) can
 * also output it, tanh(W h[:,0] + b).
 */
import { DataError, type OnnxPrecision, type Pooling } from '@dv/core';
import type { OnnxInputs } from '../../architectures/encoder-architecture.js';
import { architectureOf, type EncoderConfig } from '../../architectures/registry.js';
import type { EncoderWeights } from '../encoder-weights.js';
import { defaultFusions, noFusions, type OnnxFusions, OnnxLayers } from './onnx-layers.js';
import { type OnnxGraph, type OnnxValueInfo, onnxDataType } from './onnx-proto.js';

export interface EncoderGraphOptions {
  readonly pooling: Pooling;
  readonly normalize: boolean;
  /** Also output `pooler_output` (BERT/XLM-R pooler). Default: when pooler weights exist. */
  readonly poolerOutput?: boolean;
  /**
   * Emit ONNX Runtime's fused contrib operators (`com.microsoft`; see onnx-layers.ts) for the
   * transformer blocks: `true` (default) = `defaultFusions` (Attention / MultiHeadAttention and
   * BiasGelu / Gelu / FastGelu), an object picks blocks (missing ones off; `skipLayerNorm` adds
   * SkipLayerNormalization), `false` = standard ONNX operators only, for other runtimes.
   */
  readonly fusedOps?: boolean | Partial<OnnxFusions>;
  /**
   * `int8`: Linear weights as per-column int8 with ONNX Runtime's dynamic quantization
   * (onnx-layers.ts; contrib operators even with `fusedOps: false`). Default `fp32`.
   */
  readonly precision?: OnnxPrecision;
  /**
   * The CLS embedding graph (`cls` pooling only): the last layer computes position 0 only
   * (onnx-layers.ts `clsOnly`), and the outputs are `cls_hidden_state` [batch, hidden] (the last
   * hidden state at position 0) and `sentence_embedding` (plus `pooler_output` as usual) instead
   * of `last_hidden_state`. The same numbers as the full graph's position 0 for less work; for
   * BERT-style self-attention (BERT, XLM-R), a `DataError` for other architectures.
   */
  readonly clsOnly?: boolean;
}

/** The model types whose graph has the CLS-only form (BERT-style `selfAttention` layers). */
const clsGraphModelTypes: ReadonlySet<string> = new Set(['bert', 'xlm-roberta']);

/** Whether `config`'s architecture has a CLS-only graph (`clsOnly`). */
export function hasClsGraph(config: EncoderConfig): boolean {
  return clsGraphModelTypes.has(config.model_type);
}

const float32Min = -3.4028234663852886e38;

/** Builds the graph; throws `DataError` naming a missing or misshapen weight. */
export function buildEncoderGraph(
  config: EncoderConfig,
  weights: EncoderWeights,
  options: EncoderGraphOptions,
): OnnxGraph {
  const arch = architectureOf(config);
  const f = options.fusedOps ?? true;
  const fusions: OnnxFusions =
    typeof f === 'boolean' ? (f ? defaultFusions : noFusions) : { ...noFusions, ...f };
  const clsOnly = options.clsOnly ?? false;
  if (clsOnly && options.pooling !== 'cls')
    throw new DataError(`the CLS-only graph needs cls pooling, not "${options.pooling}"`);
  const g = new OnnxLayers(config, weights, fusions, options.precision ?? 'fp32', clsOnly);
  const fused = fusions.attention;
  const b = g.b;
  const dims = ['batch', 'sequence'];
  const inputs: OnnxValueInfo[] = [
    { name: b.reserve('input_ids'), elemType: onnxDataType.INT64, shape: dims },
    { name: b.reserve('attention_mask'), elemType: onnxDataType.INT64, shape: dims },
  ];
  const inp: OnnxInputs = arch.onnxTokenTypeIds
    ? { inputIds: 'input_ids', attentionMask: 'attention_mask', tokenTypeIds: 'token_type_ids' }
    : { inputIds: 'input_ids', attentionMask: 'attention_mask' };
  if (inp.tokenTypeIds)
    inputs.push({ name: b.reserve(inp.tokenTypeIds), elemType: onnxDataType.INT64, shape: dims });

  let maskF: string | undefined;
  const maskFloat = () => {
    maskF ??= b.op('Cast', [inp.attentionMask], { to: { i: onnxDataType.FLOAT } });
    return maskF;
  };
  // The fused attention ops read the mask itself; the bias would be a dead branch.
  const maskBias = fused
    ? ''
    : b.op('Unsqueeze', [
        b.op('Mul', [b.op('Sub', [b.scalar(1), maskFloat()]), b.scalar(float32Min)]),
        b.ints([1, 2], 'axes12'),
      ]);

  const x = arch.onnxGraph(g, config, inp, maskBias);
  if (clsOnly && !(g.clsApplied.attention && g.clsApplied.residual))
    throw new DataError(`${config.model_type}: no CLS-only graph (it needs BERT-style self-attention)`);

  const h = config.hidden_size;
  const zero = b.int64Init('index0', [], [0]);
  const cls = b.op('Gather', [x, zero], { axis: { i: 1 } });
  const outputs: OnnxValueInfo[] = [
    clsOnly
      ? { name: b.identity(cls, 'cls_hidden_state'), elemType: onnxDataType.FLOAT, shape: ['batch', h] }
      : { name: b.identity(x, 'last_hidden_state'), elemType: onnxDataType.FLOAT, shape: [...dims, h] },
  ];
  let pooled: string;
  if (options.pooling === 'cls') pooled = cls;
  else if (options.pooling === 'mean') {
    const m = b.op('Unsqueeze', [maskFloat(), b.ints([2], 'axes2')]);
    const sum = b.op('ReduceSum', [b.op('Mul', [x, m]), b.ints([1], 'axes1')], { keepdims: { i: 0 } });
    const count = b.op('Max', [
      b.op('ReduceSum', [m, b.ints([1], 'axes1')], { keepdims: { i: 0 } }),
      b.scalar(1e-9),
    ]);
    pooled = b.op('Div', [sum, count]);
  } else throw new DataError(`unknown pooling "${options.pooling as string}" (expected cls or mean)`);
  if (options.normalize) {
    const norm = b.op('Max', [
      b.op('ReduceL2', [pooled], { axes: { ints: [1] }, keepdims: { i: 1 } }),
      b.scalar(1e-12),
    ]);
    pooled = b.op('Div', [pooled, norm]);
  }
  outputs.push({
    name: b.identity(pooled, 'sentence_embedding'),
    elemType: onnxDataType.FLOAT,
    shape: ['batch', h],
  });

  const pooler = arch.pooler;
  const wantPooler = options.poolerOutput ?? pooler?.parameters.every((n) => weights.has(n));
  if (wantPooler) {
    if (!pooler) throw new DataError(`${arch.huggingFace.hfClass} has no pooler to output`);
    outputs.push({
      name: b.identity(pooler.onnx(g, cls), 'pooler_output'),
      elemType: onnxDataType.FLOAT,
      shape: ['batch', h],
    });
  }
  return b.graph(`dv-${config.model_type}-encoder`, inputs, outputs);
}
