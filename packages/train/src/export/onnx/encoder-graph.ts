/**
 * ONNX graphs of the three encoder architectures, built from a Hugging Face config and plain
 * weights. Each mirrors the reference PyTorch forward pass in eval mode (no dropout):
 *
 * - `bert` (transformers BertModel): word + absolute position (0..S-1) + token-type embeddings,
 *   LayerNorm; per layer: self-attention softmax(QK^T/sqrt(d) + maskBias)V, dense, residual +
 *   LayerNorm, FFN act(xW1+b1)W2+b2, residual + LayerNorm (post-LN).
 * - `xlm-roberta` (XLMRobertaModel): as BERT, but position ids are
 *   `cumsum(ids != pad) * (ids != pad) + pad` (transformers
 *   `create_position_ids_from_input_ids`), and token type 0 is added.
 * - `new` (Alibaba gte NewModel): no position table; rotary embeddings on Q and K per head
 *   (`q*cos + rotate_half(q)*sin`, rotate_half(x) = [-x2, x1]) with position ids 0..S-1 and
 *   inv_freq = 1/theta^(2i/d), or with NTK scaling (factor f > 1):
 *   1/((theta*f)^(2i/d)) / f^(2/d); packed QKV projection split [Q|K|V]; attention output
 *   `o_proj`; post-LN `attn_ln`; gated FFN `down(act(gate) * up)` where
 *   `[up | gate] = x W_up_gate^T` (no bias); post-LN `mlp_ln`.
 *
 * The mask bias is `(1 - attention_mask) * finfo(float32).min` broadcast over heads and
 * queries, as transformers' `get_extended_attention_mask`. Pooling: `cls` (token 0) or `mean`
 * (sum of h * mask / max(sum mask, 1e-9), as sentence-transformers), then optionally
 * `x / max(||x||_2, 1e-12)` (torch F.normalize). BERT/XLM-R can also output the pooler,
 * tanh(W h[:,0] + b).
 */
import { DataError } from '@dv/core';
import type { EncoderConfig } from '../../architectures/registry.js';
import { type EncoderWeights, requireWeight } from '../encoder-weights.js';
import { GraphBuilder } from './graph-builder.js';
import { type OnnxGraph, type OnnxValueInfo, onnxDataType } from './onnx-proto.js';

export type Pooling = 'cls' | 'mean';

export interface EncoderGraphOptions {
  readonly pooling: Pooling;
  readonly normalize: boolean;
  /** Also output `pooler_output` (BERT/XLM-R pooler). Default: when pooler weights exist. */
  readonly poolerOutput?: boolean;
}

const float32Min = -3.4028234663852886e38;

function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}

/** Rotary inverse frequencies as transformers computes them in float32 (see file comment). */
export function ropeInverseFrequencies(
  headDim: number,
  theta: number,
  scaling: { readonly factor: number } | null,
): Float32Array {
  const f = Math.fround;
  const ntk = scaling !== null && scaling.factor > 1;
  const base = ntk ? theta * scaling.factor : theta;
  const out = new Float32Array(headDim / 2);
  for (let i = 0; i < out.length; i++) {
    const exponent = f((2 * i) / headDim);
    let inv = f(1 / f(base ** exponent));
    if (ntk) inv = f(inv / f(scaling.factor ** (2 / headDim)));
    out[i] = inv;
  }
  return out;
}

/** Shared state for one graph build. */
class EncoderGraph {
  readonly b = new GraphBuilder();
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;

  constructor(
    readonly config: EncoderConfig,
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
}

interface Inputs {
  readonly inputIds: string;
  readonly attentionMask: string;
  readonly tokenTypeIds?: string;
}

/** Sequence length as a 1-D int64 tensor [S]. */
function sequenceLength(g: EncoderGraph, inputIds: string): string {
  return g.b.op('Shape', [inputIds], { start: { i: 1 }, end: { i: 2 } });
}

/** Gather of the word-embedding table at the input ids: [B, T, H]. */
function wordEmbeddings(g: EncoderGraph, inp: Inputs): string {
  const { b, config: c, hidden: h } = g;
  return b.op('Gather', [
    b.floatInit(
      'embeddings.word_embeddings.weight',
      [c.vocab_size, h],
      g.w('embeddings.word_embeddings.weight', [c.vocab_size, h]),
    ),
    inp.inputIds,
  ]);
}

function bertEmbeddings(g: EncoderGraph, inp: Inputs): string {
  const { b, config: c, hidden: h } = g;
  const words = wordEmbeddings(g, inp);
  const table = b.floatInit(
    'embeddings.position_embeddings.weight',
    [c.max_position_embeddings, h],
    g.w('embeddings.position_embeddings.weight', [c.max_position_embeddings, h]),
  );
  let positions: string;
  if (c.model_type === 'xlm-roberta') {
    const pad = b.int64Init('padding_idx', [], [c.pad_token_id]);
    const notPad = b.op('Cast', [b.op('Not', [b.op('Equal', [inp.inputIds, pad])])], {
      to: { i: onnxDataType.INT64 },
    });
    const ids = b.op('Add', [
      b.op('Mul', [b.op('CumSum', [notPad, b.int64Init('axis1', [], [1])]), notPad]),
      pad,
    ]);
    positions = b.op('Gather', [table, ids]);
  } else {
    // Rows 0..S-1 of the table, broadcast over the batch.
    positions = b.op('Slice', [
      table,
      b.ints([0], 'zero'),
      sequenceLength(g, inp.inputIds),
      b.ints([0], 'axis0'),
    ]);
  }
  const typeTable = g.w('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h]);
  const types = inp.tokenTypeIds
    ? b.op('Gather', [
        b.floatInit('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h], typeTable),
        inp.tokenTypeIds,
      ])
    : b.floatInit('token_type_0', [h], typeTable.slice(0, h));
  return g.layerNorm(b.op('Add', [b.op('Add', [words, positions]), types]), 'embeddings.LayerNorm');
}

function bertLayer(g: EncoderGraph, x: string, i: number, maskBias: string): string {
  const { b, hidden: h, config: c } = g;
  const p = `encoder.layer.${i}`;
  const q = g.splitHeads(g.linear(x, `${p}.attention.self.query`, h, h));
  const k = g.splitHeads(g.linear(x, `${p}.attention.self.key`, h, h));
  const v = g.splitHeads(g.linear(x, `${p}.attention.self.value`, h, h));
  const attn = g.linear(g.attend(q, k, v, maskBias), `${p}.attention.output.dense`, h, h);
  const x1 = g.layerNorm(b.op('Add', [attn, x]), `${p}.attention.output.LayerNorm`);
  const inter = g.activation(g.linear(x1, `${p}.intermediate.dense`, h, c.intermediate_size));
  const out = g.linear(inter, `${p}.output.dense`, c.intermediate_size, h);
  return g.layerNorm(b.op('Add', [out, x1]), `${p}.output.LayerNorm`);
}

interface Rope {
  readonly cos: string;
  readonly sin: string;
  readonly halves: string;
}

function gteEmbeddings(g: EncoderGraph, inp: Inputs): { x: string; rope: Rope } {
  const { b, config: c, hidden: h } = g;
  if (c.model_type !== 'new') throw new Error('unreachable');
  const words = wordEmbeddings(g, inp);
  let x = words;
  if (c.type_vocab_size > 0) {
    const typeTable = g.w('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h]);
    x = b.op('Add', [x, b.floatInit('token_type_0', [h], typeTable.slice(0, h))]);
  }
  x = g.layerNorm(x, 'embeddings.LayerNorm');
  // cos/sin tables [S, 1, d] for positions 0..S-1, computed in the graph so any length works.
  const inv = ropeInverseFrequencies(g.headDim, c.rope_theta, c.rope_scaling);
  const len = b.op('Cast', [b.op('Squeeze', [sequenceLength(g, inp.inputIds)])], {
    to: { i: onnxDataType.FLOAT },
  });
  const pos = b.op('Range', [b.scalar(0), len, b.scalar(1)]);
  const freqs = b.op('Mul', [
    b.op('Unsqueeze', [pos, b.ints([1], 'axes1')]),
    b.floatInit('rope_inv_freq', [inv.length], inv),
  ]);
  const emb = b.op('Unsqueeze', [b.op('Concat', [freqs, freqs], { axis: { i: -1 } }), b.ints([1], 'axes1')]);
  const rope = {
    cos: b.op('Cos', [emb]),
    sin: b.op('Sin', [emb]),
    halves: b.ints([g.headDim / 2, g.headDim / 2], 'rope_halves'),
  };
  return { x, rope };
}

/** q*cos + rotate_half(q)*sin on [B,S,heads,d]. */
function applyRope(g: EncoderGraph, q: string, rope: Rope): string {
  const b = g.b;
  const [x1, x2] = b.node('Split', [q, rope.halves], { axis: { i: -1 } }, 2, 'rope_half');
  const rotated = b.op('Concat', [b.op('Neg', [x2!]), x1!], { axis: { i: -1 } });
  return b.op('Add', [b.op('Mul', [q, rope.cos]), b.op('Mul', [rotated, rope.sin])]);
}

function gteLayer(g: EncoderGraph, x: string, i: number, maskBias: string, rope: Rope): string {
  const { b, hidden: h, config: c } = g;
  const p = `encoder.layer.${i}`;
  const qkv = g.linear(x, `${p}.attention.qkv_proj`, h, 3 * h);
  const [q, k, v] = b.node('Split', [qkv, b.ints([h, h, h], 'qkv_split')], { axis: { i: -1 } }, 3, 'qkv');
  const ctx = g.attend(
    applyRope(g, g.splitHeads(q!), rope),
    applyRope(g, g.splitHeads(k!), rope),
    g.splitHeads(v!),
    maskBias,
  );
  const x1 = g.layerNorm(b.op('Add', [g.linear(ctx, `${p}.attention.o_proj`, h, h), x]), `${p}.attn_ln`);
  const I = c.intermediate_size;
  const upGate = g.linear(x1, `${p}.mlp.up_gate_proj`, h, 2 * I, false);
  const [up, gate] = b.node(
    'Split',
    [upGate, b.ints([I, I], 'up_gate_split')],
    { axis: { i: -1 } },
    2,
    'up_gate',
  );
  const down = g.linear(b.op('Mul', [g.activation(gate!), up!]), `${p}.mlp.down_proj`, I, h);
  return g.layerNorm(b.op('Add', [x1, down]), `${p}.mlp_ln`);
}

/** Builds the graph; throws `DataError` naming a missing or misshapen weight. */
export function buildEncoderGraph(
  config: EncoderConfig,
  weights: EncoderWeights,
  options: EncoderGraphOptions,
): OnnxGraph {
  const g = new EncoderGraph(config, weights);
  const b = g.b;
  const dims = ['batch', 'sequence'];
  const inputs: OnnxValueInfo[] = [
    { name: b.reserve('input_ids'), elemType: onnxDataType.INT64, shape: dims },
    { name: b.reserve('attention_mask'), elemType: onnxDataType.INT64, shape: dims },
  ];
  const inp: Inputs =
    config.model_type === 'bert'
      ? { inputIds: 'input_ids', attentionMask: 'attention_mask', tokenTypeIds: 'token_type_ids' }
      : { inputIds: 'input_ids', attentionMask: 'attention_mask' };
  if (inp.tokenTypeIds)
    inputs.push({ name: b.reserve(inp.tokenTypeIds), elemType: onnxDataType.INT64, shape: dims });

  const maskF = b.op('Cast', [inp.attentionMask], { to: { i: onnxDataType.FLOAT } });
  const maskBias = b.op('Unsqueeze', [
    b.op('Mul', [b.op('Sub', [b.scalar(1), maskF]), b.scalar(float32Min)]),
    b.ints([1, 2], 'axes12'),
  ]);

  let x: string;
  if (config.model_type === 'new') {
    const e = gteEmbeddings(g, inp);
    x = e.x;
    for (let i = 0; i < config.num_hidden_layers; i++) x = gteLayer(g, x, i, maskBias, e.rope);
  } else {
    x = bertEmbeddings(g, inp);
    for (let i = 0; i < config.num_hidden_layers; i++) x = bertLayer(g, x, i, maskBias);
  }

  const h = config.hidden_size;
  const outputs: OnnxValueInfo[] = [
    { name: b.identity(x, 'last_hidden_state'), elemType: onnxDataType.FLOAT, shape: [...dims, h] },
  ];
  const zero = b.int64Init('index0', [], [0]);
  const cls = b.op('Gather', [x, zero], { axis: { i: 1 } });
  let pooled: string;
  if (options.pooling === 'cls') pooled = cls;
  else if (options.pooling === 'mean') {
    const m = b.op('Unsqueeze', [maskF, b.ints([2], 'axes2')]);
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

  const wantPooler =
    options.poolerOutput ?? (config.model_type !== 'new' && weights.has('pooler.dense.weight'));
  if (wantPooler) {
    if (config.model_type === 'new') throw new DataError('gte NewModel has no pooler to output');
    const pooler = b.op('Tanh', [g.linear(cls, 'pooler.dense', h, h)]);
    outputs.push({
      name: b.identity(pooler, 'pooler_output'),
      elemType: onnxDataType.FLOAT,
      shape: ['batch', h],
    });
  }
  return b.graph(`dv-${config.model_type}-encoder`, inputs, outputs);
}
