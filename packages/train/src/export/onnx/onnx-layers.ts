/**
 * The layer building blocks the architectures' ONNX graphs share, over one `GraphBuilder` and
 * one set of plain weights: torch Linear (x W^T + b), LayerNorm, the configured activation,
 * head splitting, scaled dot-product attention softmax(QK^T/sqrt(d) + maskBias)V, and table
 * lookups. Weights are read by their Hugging Face names (a missing or misshapen one is a
 * `DataError`) and stored as initializers of the same name.
 */
import type { EncoderConfigBase } from '../../architectures/shared/config-fields.js';
import { type EncoderWeights, requireWeight } from '../encoder-weights.js';
import { GraphBuilder } from './graph-builder.js';

function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}

/** Shared state for one graph build. */
export class OnnxLayers {
  readonly b = new GraphBuilder();
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;

  constructor(
    readonly config: EncoderConfigBase,
    readonly weights: EncoderWeights,
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
    const wt = transpose2d(this.w(`${name}.weight`, [outDim, inDim]), outDim, inDim);
    const y = this.b.op('MatMul', [x, this.b.floatInit(`${name}.weight_t`, [inDim, outDim], wt)]);
    if (!bias) return y;
    return this.b.op('Add', [
      y,
      this.b.floatInit(`${name}.bias`, [outDim], this.w(`${name}.bias`, [outDim])),
    ]);
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
    switch (this.config.hidden_act) {
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
