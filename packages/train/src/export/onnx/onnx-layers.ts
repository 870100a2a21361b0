/**
 * The layer building blocks the architectures' ONNX graphs share, over one `GraphBuilder` and
 * one set of plain weights: torch Linear (x W^T + b), LayerNorm, the configured activation,
 * head splitting, scaled dot-product attention softmax(QK^T/sqrt(d) + maskBias)V, and table
 * lookups. Weights are read by their Hugging Face names (a missing or misshapen one is a
 * `DataError`) and stored as initializers of the same name.
 *
 * With `fused` (the export's default is `defaultFusions`: attention and GELU), the composite
 * blocks are emitted as ONNX Runtime's contrib operators (domain `com.microsoft`, documented in onnxruntime's
 * docs/ContribOperators.md), whose CPU kernels run each block in one pass; ORT's own
 * graph-level fusions do not match the standard-op forms below. The same math:
 * - Linear + exact GELU: `BiasGelu(xW^T, b)`; the tanh approximation: `FastGelu(xW^T, b)`;
 *   without a bias `Gelu` / `FastGelu` with one input;
 * - Linear + residual + LayerNorm: `SkipLayerNormalization(xW^T, residual, gamma, beta, b)`,
 *   i.e. LayerNorm(xW^T + residual + b) (the sum in another order than (xW^T + b) + residual);
 * - BERT self-attention from the layer input: `Attention(x, [Wq|Wk|Wv]^T, [bq|bk|bv], mask)`
 *   with the int32 attention mask as its raw key-padding mask (masked keys get -10000 before
 *   the softmax instead of finfo(float32).min: both give exp(...) = 0 in float32);
 * - attention on projected (e.g. rotary) Q, K, V: `MultiHeadAttention(q, k, v, key_padding_mask)`.
 * Without fusions every block uses standard ONNX operators only (any runtime).
 *
 * With `precision: 'int8'` every Linear weight is stored as symmetric per-column int8
 * (`quantizeInt8PerColumn`, the scheme of ONNX Runtime's `quantize_dynamic` with per-channel
 * QInt8 weights) and its product runs as ONNX Runtime's dynamic quantization: the activation is
 * quantized to uint8 per tensor at run time, multiplied in integers, and scaled back to float32:
 * `DynamicQuantizeMatMul(x, q, scale, 0, b)` for a Linear, and for fused BERT self-attention
 * `DynamicQuantizeLinear(x)` then `QAttention` with the packed int8 projection; a fused GELU
 * follows the biased product as `Gelu` / `FastGelu`. Embedding tables,
 * LayerNorm, GELU, softmax and pooling stay float32.
 */
import type { OnnxPrecision } from '@dv/core';
import type { EncoderConfigBase } from '../../architectures/shared/config-fields.js';
import { type EncoderWeights, requireWeight } from '../encoder-weights.js';
import { GraphBuilder } from './graph-builder.js';
import { onnxDataType } from './onnx-proto.js';
import { quantizeInt8PerColumn } from './quantize-int8.js';

function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}

/** Which composite blocks are emitted as ONNX Runtime contrib operators. */
export interface OnnxFusions {
  readonly attention: boolean;
  readonly skipLayerNorm: boolean;
  readonly gelu: boolean;
}

/**
 * What `fusedOps: true` emits. SkipLayerNormalization is left out: on ONNX Runtime 1.30's CPU
 * kernel it cost about 12% more CPU time than Add + LayerNormalization on the encode benchmark's
 * model, while Attention and BiasGelu saved about 19% together (docs/benchmarks.md).
 */
export const defaultFusions: OnnxFusions = { attention: true, skipLayerNorm: false, gelu: true };
export const noFusions: OnnxFusions = { attention: false, skipLayerNorm: false, gelu: false };

/** Shared state for one graph build. */
export class OnnxLayers {
  readonly b = new GraphBuilder();
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;

  private keyMask: string | undefined;
  /** CLS-only graph: the last layer's input -> its position-0 rows [B, 1, H] (see `clsOnly`). */
  private readonly clsRows = new Map<string, string>();
  /** CLS-only graph: whether the last layer's attention and its residual took position 0 only. */
  clsApplied = { attention: false, residual: false };

  constructor(
    readonly config: EncoderConfigBase,
    readonly weights: EncoderWeights,
    /** The blocks emitted as ONNX Runtime contrib operators (see the file comment). */
    readonly fused: OnnxFusions = noFusions,
    /** The Linear weights' precision (see the file comment). */
    readonly precision: OnnxPrecision = 'fp32',
    /**
     * Build the CLS embedding graph: the last layer computes position 0 only (its query row
     * against every key and value; output projection, LayerNorms and FFN on that row), so the
     * last hidden state is [B, 1, H]. Other positions of the last layer never reach a CLS
     * embedding: each row of a transformer layer depends on every row of its input but only on
     * its own row of the attention output. Saves about 5/6 of one layer (3h^2 + 8h^2 of its
     * 12h^2 multiply-adds per token, the K/V projections stay): ~20% of a 4-layer model, ~7% of
     * a 12-layer one. Implemented for BERT-style `selfAttention` (BERT, XLM-R).
     */
    readonly clsOnly = false,
  ) {
    this.hidden = config.hidden_size;
    this.heads = config.num_attention_heads;
    this.headDim = config.hidden_size / config.num_attention_heads;
  }

  w(name: string, shape: readonly number[]): Float32Array {
    return requireWeight(this.weights, name, shape);
  }

  /** x W^T + b for a torch Linear `name` with weight [out, in]. */
  linear(x: string, name: string, inDim: number, outDim: number, bias = true): string {
    if (this.precision === 'int8') return this.matMul(x, name, inDim, outDim, bias);
    const y = this.matMul(x, name, inDim, outDim);
    if (!bias) return y;
    return this.b.op('Add', [y, this.bias(name, outDim)]);
  }

  /**
   * x W^T for a torch Linear `name` with weight [out, in]; with `withBias` (int8 only) the bias
   * is added by the same node.
   */
  private matMul(x: string, name: string, inDim: number, outDim: number, withBias = false): string {
    const wt = transpose2d(this.w(`${name}.weight`, [outDim, inDim]), outDim, inDim);
    if (this.precision === 'fp32')
      return this.b.op('MatMul', [x, this.b.floatInit(`${name}.weight_t`, [inDim, outDim], wt)]);
    const q = this.int8Weight(`${name}.weight_t`, wt, inDim, outDim);
    return this.b.contribOp('DynamicQuantizeMatMul', [
      x,
      q.data,
      q.scale,
      q.zeroPoint,
      ...(withBias ? [this.bias(name, outDim)] : []),
    ]);
  }

  /** The int8 initializers of a weight [inDim, outDim]: values, per-column scales, zero points. */
  private int8Weight(hint: string, wt: Float32Array, inDim: number, outDim: number) {
    const q = quantizeInt8PerColumn(wt, inDim, outDim);
    return {
      data: this.b.int8Init(`${hint}_quantized`, [inDim, outDim], q.data),
      scale: this.b.floatInit(`${hint}_scale`, [outDim], q.scale),
      zeroPoint: this.b.int8Init(`${hint}_zero_point`, [outDim], new Int8Array(outDim)),
    };
  }

  private bias(name: string, outDim: number): string {
    return this.b.floatInit(`${name}.bias`, [outDim], this.w(`${name}.bias`, [outDim]));
  }

  /** act(x W^T + b): the configured activation after a Linear (fused: BiasGelu / FastGelu). */
  linearActivation(x: string, name: string, inDim: number, outDim: number): string {
    const act = this.config.hidden_act;
    if (!this.fused.gelu || act === 'relu') return this.activation(this.linear(x, name, inDim, outDim));
    const op = act === 'gelu' ? 'Gelu' : 'FastGelu';
    // int8: the bias rides in DynamicQuantizeMatMul, then a bias-free Gelu: ONNX Runtime 1.30's
    // CPU Gelu takes about half the time of its BiasGelu on the encode benchmark's model (12 vs
    // 23 ms per batch of 64 x 56 tokens, 12% of the int8 graph's kernel time).
    if (this.precision === 'int8') return this.b.contribOp(op, [this.matMul(x, name, inDim, outDim, true)]);
    const y = this.matMul(x, name, inDim, outDim);
    return this.b.contribOp(act === 'gelu' ? 'BiasGelu' : 'FastGelu', [y, this.bias(name, outDim)]);
  }

  /**
   * LayerNorm(x W^T + b + residual) with the LayerNorm `lnName` (post-LN residual block; fused:
   * SkipLayerNormalization with the Linear's bias).
   */
  linearResidualLayerNorm(
    x: string,
    name: string,
    inDim: number,
    outDim: number,
    residual: string,
    lnName: string,
  ): string {
    residual = this.clsResidual(residual);
    if (!this.fused.skipLayerNorm)
      return this.layerNorm(this.b.op('Add', [this.linear(x, name, inDim, outDim), residual]), lnName);
    const h = this.hidden;
    return this.b.contribOp(
      'SkipLayerNormalization',
      [
        this.matMul(x, name, inDim, outDim),
        residual,
        this.b.floatInit(`${lnName}.weight`, [h], this.w(`${lnName}.weight`, [h])),
        this.b.floatInit(`${lnName}.bias`, [h], this.w(`${lnName}.bias`, [h])),
        this.bias(name, outDim),
      ],
      { epsilon: { f: this.config.layer_norm_eps } },
    );
  }

  layerNorm(x: string, name: string): string {
    const h = this.hidden;
    return this.b.op(
      'LayerNormalization',
      [
        x,
        this.b.floatInit(`${name}.weight`, [h], this.w(`${name}.weight`, [h])),
        this.b.floatInit(`${name}.bias`, [h], this.w(`${name}.bias`, [h])),
      ],
      { axis: { i: -1 }, epsilon: { f: this.config.layer_norm_eps } },
    );
  }

  activation(x: string): string {
    const b = this.b;
    const act = this.config.hidden_act;
    if (this.fused.gelu && act !== 'relu') return b.contribOp(act === 'gelu' ? 'Gelu' : 'FastGelu', [x]);
    switch (act) {
      case 'relu':
        return b.op('Relu', [x]);
      case 'gelu': {
        // 0.5 x (1 + erf(x / sqrt 2)), the exact GELU of torch.nn.functional.gelu.
        const erf = b.op('Erf', [b.op('Mul', [x, b.scalar(Math.SQRT1_2)])]);
        return b.op('Mul', [b.op('Mul', [x, b.scalar(0.5)]), b.op('Add', [erf, b.scalar(1)])]);
      }
      default: {
        // tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
        const x3 = b.op('Mul', [b.op('Mul', [x, x]), x]);
        const inner = b.op('Mul', [
          b.op('Add', [x, b.op('Mul', [x3, b.scalar(0.044715)])]),
          b.scalar(Math.sqrt(2 / Math.PI)),
        ]);
        return b.op('Mul', [
          b.op('Mul', [x, b.scalar(0.5)]),
          b.op('Add', [b.op('Tanh', [inner]), b.scalar(1)]),
        ]);
      }
    }
  }

  /** [B,S,H] -> [B,S,heads,d]. */
  splitHeads(x: string): string {
    return this.b.op('Reshape', [x, this.b.ints([0, 0, this.heads, this.headDim], 'heads_shape')]);
  }

  /** Scaled dot-product attention on [B,S,heads,d] inputs; returns [B,S,H]. */
  attend(q: string, k: string, v: string, maskBias: string): string {
    const b = this.b;
    const q4 = b.op('Transpose', [q], { perm: { ints: [0, 2, 1, 3] } });
    const kT = b.op('Transpose', [k], { perm: { ints: [0, 2, 3, 1] } });
    const v4 = b.op('Transpose', [v], { perm: { ints: [0, 2, 1, 3] } });
    const scores = b.op('Div', [b.op('MatMul', [q4, kT]), b.scalar(Math.sqrt(this.headDim))]);
    const probs = b.op('Softmax', [b.op('Add', [scores, maskBias])], { axis: { i: -1 } });
    const ctx = b.op('Transpose', [b.op('MatMul', [probs, v4])], { perm: { ints: [0, 2, 1, 3] } });
    return b.op('Reshape', [ctx, b.ints([0, 0, this.hidden], 'hidden_shape')]);
  }

  /**
   * Self-attention of BERT-style separate `query`/`key`/`value` Linears (under `prefix`) on
   * [B,S,H] `x`: softmax(QK^T/sqrt(d) + maskBias)V as [B,S,H] (fused: one `Attention` node with
   * the packed projection and `attentionMask` as its key-padding mask).
   */
  selfAttention(x: string, prefix: string, attentionMask: string, maskBias: string): string {
    const h = this.hidden;
    if (this.clsOnly && prefix === `encoder.layer.${this.config.num_hidden_layers - 1}.attention.self`)
      return this.clsSelfAttention(x, prefix, attentionMask, maskBias);
    if (!this.fused.attention) {
      const q = this.splitHeads(this.linear(x, `${prefix}.query`, h, h));
      const k = this.splitHeads(this.linear(x, `${prefix}.key`, h, h));
      const v = this.splitHeads(this.linear(x, `${prefix}.value`, h, h));
      return this.attend(q, k, v, maskBias);
    }
    const parts = ['query', 'key', 'value'].map((p) => `${prefix}.${p}`);
    const packed = new Float32Array(h * 3 * h);
    const bias = new Float32Array(3 * h);
    parts.forEach((name, j) => {
      const wt = transpose2d(this.w(`${name}.weight`, [h, h]), h, h); // [in, out]
      for (let r = 0; r < h; r++) packed.set(wt.subarray(r * h, (r + 1) * h), r * 3 * h + j * h);
      bias.set(this.w(`${name}.bias`, [h]), j * h);
    });
    // Initializers in the order weight, bias (the float32 file's bytes as before int8 existed).
    const qkvBias = () => this.b.floatInit(`${prefix}.qkv.bias`, [3 * h], bias);
    if (this.precision === 'int8') {
      const [xq, xScale, xZeroPoint] = this.b.node('DynamicQuantizeLinear', [x], {}, 3);
      const q = this.int8Weight(`${prefix}.qkv.weight_t`, packed, h, 3 * h);
      return this.b.contribOp(
        'QAttention',
        [
          xq!,
          q.data,
          qkvBias(),
          xScale!,
          q.scale,
          this.keyPaddingMask(attentionMask),
          xZeroPoint!,
          q.zeroPoint,
        ],
        { num_heads: { i: this.heads } },
      );
    }
    return this.b.contribOp(
      'Attention',
      [
        x,
        this.b.floatInit(`${prefix}.qkv.weight_t`, [h, 3 * h], packed),
        qkvBias(),
        this.keyPaddingMask(attentionMask),
      ],
      { num_heads: { i: this.heads } },
    );
  }

  /**
   * The last layer's self-attention of the CLS-only graph: the query of position 0 only
   * ([B, 1, H]) against the keys and values of every position; returns [B, 1, H] and records
   * the position-0 rows of `x` for the residual after it (`clsResidual`). Fused:
   * `MultiHeadAttention` (query length 1, key length S, the same -10000 key-padding mask as
   * `Attention`); int8: the same with `DynamicQuantizeMatMul` projections.
   */
  private clsSelfAttention(x: string, prefix: string, attentionMask: string, maskBias: string): string {
    const h = this.hidden;
    const b = this.b;
    const x0 = b.op('Slice', [x, b.ints([0], 'zero'), b.ints([1], 'one'), b.ints([1], 'axis1')]);
    this.clsRows.set(x, x0);
    this.clsApplied.attention = true;
    const q = this.linear(x0, `${prefix}.query`, h, h);
    const k = this.linear(x, `${prefix}.key`, h, h);
    const v = this.linear(x, `${prefix}.value`, h, h);
    if (!this.fused.attention)
      return this.attend(this.splitHeads(q), this.splitHeads(k), this.splitHeads(v), maskBias);
    return b.contribOp('MultiHeadAttention', [q, k, v, '', this.keyPaddingMask(attentionMask)], {
      num_heads: { i: this.heads },
    });
  }

  /** The residual of the CLS-only last layer: its input's position-0 rows (else `residual`). */
  private clsResidual(residual: string): string {
    const row = this.clsRows.get(residual);
    if (row === undefined) return residual;
    this.clsApplied.residual = true;
    return row;
  }

  /**
   * Attention on projected [B,S,heads,d] q, k, v (e.g. after rotary embeddings): as `attend`
   * (fused: `MultiHeadAttention` with `attentionMask` as its key-padding mask).
   */
  attendMasked(q: string, k: string, v: string, attentionMask: string, maskBias: string): string {
    if (!this.fused.attention) return this.attend(q, k, v, maskBias);
    const flat = (t: string) => this.b.op('Reshape', [t, this.b.ints([0, 0, this.hidden], 'hidden_shape')]);
    return this.b.contribOp(
      'MultiHeadAttention',
      [flat(q), flat(k), flat(v), '', this.keyPaddingMask(attentionMask)],
      {
        num_heads: { i: this.heads },
      },
    );
  }

  /** The int64 [B,S] attention mask as int32, once per graph (the contrib ops' mask type). */
  private keyPaddingMask(attentionMask: string): string {
    this.keyMask ??= this.b.op('Cast', [attentionMask], { to: { i: onnxDataType.INT32 } });
    return this.keyMask;
  }

  /** Sequence length of [B, S] `inputIds` as a 1-D int64 tensor [S]. */
  sequenceLength(inputIds: string): string {
    return this.b.op('Shape', [inputIds], { start: { i: 1 }, end: { i: 2 } });
  }

  /** Gather of the word-embedding table at the input ids: [B, S, H]. */
  wordEmbeddings(inputIds: string): string {
    const { b, config: c, hidden: h } = this;
    return b.op('Gather', [
      b.floatInit(
        'embeddings.word_embeddings.weight',
        [c.vocab_size, h],
        this.w('embeddings.word_embeddings.weight', [c.vocab_size, h]),
      ),
      inputIds,
    ]);
  }
}
