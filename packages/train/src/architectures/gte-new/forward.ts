/**
 * gte NewModel's forward pass (Alibaba-NLP/new-impl modeling.py, eval mode): word (+ token
 * type 0) embeddings and LayerNorm, no position table; rotary embeddings on Q and K
 * (`q cos + rotate_half(q) sin`, positions 0..T-1, frequencies from rope-inverse-frequencies.ts);
 * packed QKV [Q|K|V]; `o_proj`; post-LN `attn_ln`; gated FFN `down(act(gate) * up)` with
 * `[up | gate] = x W^T` (no bias); post-LN `mlp_ln`.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../../backend/tf.js';
import {
  activations,
  applyRope,
  attention,
  attentionMaskBias,
  embeddingLookup,
  layerNorm,
  linear,
  mergeHeads,
  packedAttention,
  splitHeads,
} from '../../internal/tf-layers.js';
import type { EncoderArchitecture } from '../encoder-architecture.js';
import { clsRows } from '../shared/cls-rows.js';
import type { GteNewConfig } from './config.js';
import { ropeInverseFrequencies } from './rope-inverse-frequencies.js';

/** cos and sin tables [1, 1, T, d] for positions 0..T-1, in float32 as transformers computes them. */
function ropeTables(c: GteNewConfig, t: number): { cos: Tensor; sin: Tensor } {
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

export const gteNewForward: EncoderArchitecture<GteNewConfig>['forward'] = (c, p, inp, dropout, rows) => {
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
