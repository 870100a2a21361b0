/**
 * The three encoder architectures of the paper's backbones, as tfjs forward passes over
 * Hugging Face parameter names (without the base-model prefix). Each mirrors the reference
 * PyTorch module in eval mode; dropout is applied only when a `dropout` function is passed.
 *
 * - `bert` (transformers BertModel): word + absolute position (0..T-1) + token-type
 *   embeddings, LayerNorm; post-LN layers: self-attention, dense, residual + LayerNorm,
 *   FFN act(x W1 + b1) W2 + b2, residual + LayerNorm. Pooler tanh(W h[:,0] + b).
 * - `xlm-roberta` (XLMRobertaModel): as BERT, but position ids are offset by the padding id:
 *   `cumsum(ids != pad) * (ids != pad) + pad` (transformers `create_position_ids_from_input_ids`).
 * - `new` (Alibaba gte NewModel, Alibaba-NLP/new-impl modeling.py): word (+ token type 0)
 *   embeddings and LayerNorm, no position table; rotary embeddings on Q and K
 *   (`q cos + rotate_half(q) sin`, positions 0..T-1) with NTK scaling
 *   inv_freq = 1/((theta f)^(2i/d)) / f^(2/d); packed QKV [Q|K|V]; `o_proj`; post-LN `attn_ln`;
 *   gated FFN `down(act(gate) * up)` with `[up | gate] = x W^T` (no bias); post-LN `mlp_ln`.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import type { EncoderConfig, EncoderModelType } from '../export/index.js';
import { ropeInverseFrequencies } from '../export/index.js';
import {
  activations,
  applyRope,
  attention,
  attentionMaskBias,
  denseResidualLayerNorm,
  embeddingLookup,
  layerNorm,
  linear,
  linearAct,
  mergeHeads,
  packedAttention,
  splitHeads,
} from '../internal/tf-layers.js';

export interface ParameterSpec {
  shape: number[];
  /** How a fresh model initialises it (BERT's scheme: N(0, initializer_range), LayerNorm 1/0). */
  init: 'normal' | 'ones' | 'zeros';
  /** Not reached by the sentence embedding (the BERT pooler): kept and exported, not trained. */
  trainable?: boolean;
}

export interface ForwardInputs {
  inputIds: Tensor;
  attentionMask: Tensor;
  tokenTypeIds?: Tensor;
}

export type Params = (name: string) => Tensor;
/** Which positions of the last hidden state to compute: all, or only position 0 (CLS pooling). */
export type OutputRows = 'all' | 'cls';
export type Dropout = (x: Tensor) => Tensor;

export interface Architecture {
  parameters(config: EncoderConfig): Record<string, ParameterSpec>;
  /** Last hidden state [B, T, H], or [B, 1, H] with rows `cls`. */
  forward(
    config: EncoderConfig,
    p: Params,
    inputs: ForwardInputs,
    dropout: Dropout,
    rows: OutputRows,
  ): Tensor;
}

const ln = (h: number): Record<string, ParameterSpec> => ({
  weight: { shape: [h], init: 'ones' },
  bias: { shape: [h], init: 'zeros' },
});
const dense = (out: number, inp: number, bias = true): Record<string, ParameterSpec> => ({
  weight: { shape: [out, inp], init: 'normal' },
  ...(bias ? { bias: { shape: [out], init: 'zeros' } } : {}),
});
function prefixed(prefix: string, specs: Record<string, ParameterSpec>): Record<string, ParameterSpec> {
  return Object.fromEntries(Object.entries(specs).map(([k, v]) => [`${prefix}.${k}`, v]));
}

function bertParameters(c: EncoderConfig): Record<string, ParameterSpec> {
  const h = c.hidden_size;
  const out: Record<string, ParameterSpec> = {
    'embeddings.word_embeddings.weight': { shape: [c.vocab_size, h], init: 'normal' },
    'embeddings.position_embeddings.weight': { shape: [c.max_position_embeddings, h], init: 'normal' },
    'embeddings.token_type_embeddings.weight': { shape: [c.type_vocab_size, h], init: 'normal' },
    ...prefixed('embeddings.LayerNorm', ln(h)),
  };
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    Object.assign(
      out,
      prefixed(`${p}.attention.self.query`, dense(h, h)),
      prefixed(`${p}.attention.self.key`, dense(h, h)),
      prefixed(`${p}.attention.self.value`, dense(h, h)),
      prefixed(`${p}.attention.output.dense`, dense(h, h)),
      prefixed(`${p}.attention.output.LayerNorm`, ln(h)),
      prefixed(`${p}.intermediate.dense`, dense(c.intermediate_size, h)),
      prefixed(`${p}.output.dense`, dense(h, c.intermediate_size)),
      prefixed(`${p}.output.LayerNorm`, ln(h)),
    );
  }
  out['pooler.dense.weight'] = { shape: [h, h], init: 'normal', trainable: false };
  out['pooler.dense.bias'] = { shape: [h], init: 'zeros', trainable: false };
  return out;
}

/** XLM-R position ids: cumsum(ids != pad) * (ids != pad) + pad. */
function xlmRobertaPositionIds(c: EncoderConfig, inputIds: Tensor): Tensor {
  const notPad = tf.cast(tf.notEqual(inputIds, c.pad_token_id), 'float32');
  return tf.cast(tf.add(tf.mul(tf.cumsum(notPad, 1), notPad), c.pad_token_id), 'int32');
}

/**
 * Position embeddings [B, T, H] (BERT) or [1, T, H] broadcast over the batch (BERT's positions
 * 0..T-1 are the table's first T rows: a slice, whose gradient is a pad, instead of a
 * [B, T, H] gather and scatter-add).
 */
function positionEmbeddings(c: EncoderConfig, table: Tensor, inputIds: Tensor): Tensor {
  if (c.model_type === 'xlm-roberta') return embeddingLookup(table, xlmRobertaPositionIds(c, inputIds));
  const t = inputIds.shape[1]!;
  return tf.slice(table, [0, 0], [t, table.shape[1]!]).expandDims(0);
}

/**
 * Embedding rows [B*T, H] -> the encoder stack. With `rows: 'cls'` the last layer computes only
 * what position 0's output depends on: its query, but every key and value; the result is then
 * [B*1, H] and equal to the full pass's rows at position 0 (used for CLS pooling, where the
 * other positions' last-layer outputs are never read).
 */
const bertForward: Architecture['forward'] = (c, p, inp, dropout, rows) => {
  const [b, t] = inp.inputIds.shape as [number, number];
  const h = c.hidden_size;
  const types = inp.tokenTypeIds ?? tf.zerosLike(inp.inputIds);
  let x = tf
    .add(
      tf.add(
        embeddingLookup(p('embeddings.word_embeddings.weight'), inp.inputIds),
        positionEmbeddings(c, p('embeddings.position_embeddings.weight'), inp.inputIds),
      ),
      embeddingLookup(p('embeddings.token_type_embeddings.weight'), types),
    )
    .reshape([b * t, h]);
  x = dropout(
    layerNorm(x, p('embeddings.LayerNorm.weight'), p('embeddings.LayerNorm.bias'), c.layer_norm_eps),
  );
  const bias = attentionMaskBias(inp.attentionMask);
  const heads = c.num_attention_heads;
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const l = (n: string) => p(`encoder.layer.${i}.${n}`);
    const w = (n: string) => l(`attention.self.${n}.weight`);
    const wb = (n: string) => l(`attention.self.${n}.bias`);
    // Q, K and V in one GEMM over the packed [3H, H] weight (its gradient is split back).
    const clsOnly = rows === 'cls' && i === c.num_hidden_layers - 1;
    let ctx: Tensor;
    let residual = x;
    if (clsOnly) {
      residual = clsRows(x, b);
      const [q] = splitHeads(linear(residual, w('query'), wb('query')), b, heads) as [Tensor];
      const kv = linear(x, tf.concat([w('key'), w('value')], 0), tf.concat([wb('key'), wb('value')], 0));
      const [k, v] = splitHeads(kv, b, heads, 2) as [Tensor, Tensor];
      ctx = mergeHeads(attention(q, k, v, bias));
    } else {
      const packed = tf.concat([w('query'), w('key'), w('value')], 0);
      const qkv = linear(x, packed, tf.concat([wb('query'), wb('key'), wb('value')], 0));
      ctx = packedAttention(qkv, bias, b, heads);
    }
    // layerNorm(dropout(dense(.)) + residual), bias and residual sum fused into the LayerNorm.
    const dense = (n: string, input: Tensor, res: Tensor) =>
      denseResidualLayerNorm(
        input,
        l(`${n}.dense.weight`),
        l(`${n}.dense.bias`),
        res,
        l(`${n}.LayerNorm.weight`),
        l(`${n}.LayerNorm.bias`),
        c.layer_norm_eps,
        dropout,
      );
    const x1 = dense('attention.output', ctx, residual);
    const inter = linearAct(x1, l('intermediate.dense.weight'), l('intermediate.dense.bias'), c.hidden_act);
    x = dense('output', inter, x1);
  }
  return x.reshape([b, x.shape[0]! / b, h]);
};

/** Rows [B*T, H] -> the rows of position 0, [B, H]. */
function clsRows(x: Tensor, batch: number): Tensor {
  const h = x.shape[1]!;
  return tf.slice(x.reshape([batch, -1, h]), [0, 0, 0], [batch, 1, h]).reshape([batch, h]);
}

function gteParameters(c: EncoderConfig): Record<string, ParameterSpec> {
  const h = c.hidden_size;
  const I = c.intermediate_size;
  const out: Record<string, ParameterSpec> = {
    'embeddings.word_embeddings.weight': { shape: [c.vocab_size, h], init: 'normal' },
    ...(c.type_vocab_size > 0
      ? { 'embeddings.token_type_embeddings.weight': { shape: [c.type_vocab_size, h], init: 'normal' } }
      : {}),
    ...prefixed('embeddings.LayerNorm', ln(h)),
  };
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    Object.assign(
      out,
      prefixed(`${p}.attention.qkv_proj`, dense(3 * h, h)),
      prefixed(`${p}.attention.o_proj`, dense(h, h)),
      prefixed(`${p}.attn_ln`, ln(h)),
      prefixed(`${p}.mlp.up_gate_proj`, dense(2 * I, h, false)),
      prefixed(`${p}.mlp.down_proj`, dense(h, I)),
      prefixed(`${p}.mlp_ln`, ln(h)),
    );
  }
  return out;
}

/** cos and sin tables [1, 1, T, d] for positions 0..T-1, in float32 as transformers computes them. */
function ropeTables(c: EncoderConfig, t: number): { cos: Tensor; sin: Tensor } {
  if (c.model_type !== 'new') throw new Error('rope tables are for model_type new');
  const d = c.hidden_size / c.num_attention_heads;
  const inv = ropeInverseFrequencies(d, c.rope_theta, c.rope_scaling);
  const cos = new Float32Array(t * d);
  const sin = new Float32Array(t * d);
  for (let pos = 0; pos < t; pos++)
    for (let i = 0; i < d / 2; i++) {
      const f = Math.fround(pos * inv[i]!);
      for (const j of [i, i + d / 2]) {
        cos[pos * d + j] = Math.cos(f);
        sin[pos * d + j] = Math.sin(f);
      }
    }
  return { cos: tf.tensor4d(cos, [1, 1, t, d]), sin: tf.tensor4d(sin, [1, 1, t, d]) };
}

const gteForward: Architecture['forward'] = (c, p, inp, dropout, rows) => {
  const [b, t] = inp.inputIds.shape as [number, number];
  const h = c.hidden_size;
  const I = c.intermediate_size;
  const heads = c.num_attention_heads;
  let x = embeddingLookup(p('embeddings.word_embeddings.weight'), inp.inputIds);
  if (c.type_vocab_size > 0) {
    const types = inp.tokenTypeIds ?? tf.zerosLike(inp.inputIds);
    x = tf.add(x, embeddingLookup(p('embeddings.token_type_embeddings.weight'), types));
  }
  x = dropout(
    layerNorm(
      x.reshape([b * t, h]),
      p('embeddings.LayerNorm.weight'),
      p('embeddings.LayerNorm.bias'),
      c.layer_norm_eps,
    ),
  );
  const bias = attentionMaskBias(inp.attentionMask);
  const { cos, sin } = ropeTables(c, t);
  const act = activations[c.hidden_act];
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const l = (n: string) => p(`encoder.layer.${i}.${n}`);
    const clsOnly = rows === 'cls' && i === c.num_hidden_layers - 1;
    const wQkv = l('attention.qkv_proj.weight');
    const bQkv = l('attention.qkv_proj.bias');
    let ctx: Tensor;
    let residual = x;
    if (clsOnly) {
      // Position 0's query: rotation by angle 0 is the identity (cos 1, sin 0).
      residual = clsRows(x, b);
      const [wq, wkv] = tf.split(wQkv, [h, 2 * h], 0) as [Tensor, Tensor];
      const [bq, bkv] = tf.split(bQkv, [h, 2 * h], 0) as [Tensor, Tensor];
      const [q] = splitHeads(linear(residual, wq, bq), b, heads) as [Tensor];
      const [kr, v] = splitHeads(linear(x, wkv, bkv), b, heads, 2) as [Tensor, Tensor];
      const k = applyRope(kr, cos, sin);
      ctx = mergeHeads(attention(q, k, v, bias));
    } else {
      const d = h / heads;
      ctx = packedAttention(linear(x, wQkv, bQkv), bias, b, heads, {
        cos: cos.reshape([t, d]),
        sin: sin.reshape([t, d]),
      });
    }
    const a = dropout(linear(ctx, l('attention.o_proj.weight'), l('attention.o_proj.bias')));
    const x1 = layerNorm(tf.add(residual, a), l('attn_ln.weight'), l('attn_ln.bias'), c.layer_norm_eps);
    const [up, gate] = tf.split(linear(x1, l('mlp.up_gate_proj.weight')), [I, I], 1);
    const down = dropout(linear(tf.mul(act(gate!), up!), l('mlp.down_proj.weight'), l('mlp.down_proj.bias')));
    x = layerNorm(tf.add(x1, down), l('mlp_ln.weight'), l('mlp_ln.bias'), c.layer_norm_eps);
  }
  return x.reshape([b, x.shape[0]! / b, h]);
};

export const architectures = Object.freeze({
  bert: { parameters: bertParameters, forward: bertForward },
  'xlm-roberta': { parameters: bertParameters, forward: bertForward },
  new: { parameters: gteParameters, forward: gteForward },
} as const satisfies Record<EncoderModelType, Architecture>);
