/**
 * gte NewModel as an ONNX graph (eval mode, no dropout): word (+ token type 0) embeddings and
 * LayerNorm; rotary embeddings on Q and K per head (`q*cos + rotate_half(q)*sin`,
 * rotate_half(x) = [-x2, x1]) with positions 0..S-1, the cos/sin tables computed in the graph
 * so any length works; packed QKV projection split [Q|K|V]; attention output `o_proj`; post-LN
 * `attn_ln`; gated FFN `down(act(gate) * up)` where `[up | gate] = x W_up_gate^T` (no bias);
 * post-LN `mlp_ln`.
 */

import { onnxDataType } from '@dv/core';
import type { EncoderArchitecture, OnnxInputs } from '../encoder-architecture.js';
import type { OnnxGraphOps } from '../shared/onnx-graph-ops.js';
import type { GteNewConfig } from './config.js';
import { ropeInverseFrequencies } from './rope-inverse-frequencies.js';

interface Rope {
  readonly cos: string;
  readonly sin: string;
  readonly halves: string;
}

function gteEmbeddings(g: OnnxGraphOps, c: GteNewConfig, inp: OnnxInputs): { x: string; rope: Rope } {
  const { b, hidden: h } = g;
  const words = g.wordEmbeddings(inp.inputIds);
  let x = words;
  if (c.type_vocab_size > 0) {
    const typeTable = g.w('embeddings.token_type_embeddings.weight', [c.type_vocab_size, h]);
    x = b.op('Add', [x, b.floatInit('token_type_0', [h], typeTable.slice(0, h))]);
  }
  x = g.layerNorm(x, 'embeddings.LayerNorm');
  // cos/sin tables [S, 1, d] for positions 0..S-1, computed in the graph so any length works.
  const inv = ropeInverseFrequencies(g.headDim, c.rope_theta, c.rope_scaling);
  const len = b.op('Cast', [b.op('Squeeze', [g.sequenceLength(inp.inputIds)])], {
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
function applyRope(g: OnnxGraphOps, q: string, rope: Rope): string {
  const b = g.b;
  const [x1, x2] = b.node('Split', [q, rope.halves], { axis: { i: -1 } }, 2, 'rope_half');
  const rotated = b.op('Concat', [b.op('Neg', [x2!]), x1!], { axis: { i: -1 } });
  return b.op('Add', [b.op('Mul', [q, rope.cos]), b.op('Mul', [rotated, rope.sin])]);
}

function gteLayer(g: OnnxGraphOps, x: string, i: number, mask: string, maskBias: string, rope: Rope): string {
  const { b, hidden: h, config: c } = g;
  const p = `encoder.layer.${i}`;
  const qkv = g.linear(x, `${p}.attention.qkv_proj`, h, 3 * h);
  const [q, k, v] = b.node('Split', [qkv, b.ints([h, h, h], 'qkv_split')], { axis: { i: -1 } }, 3, 'qkv');
  const ctx = g.attendMasked(
    applyRope(g, g.splitHeads(q!), rope),
    applyRope(g, g.splitHeads(k!), rope),
    g.splitHeads(v!),
    mask,
    maskBias,
  );
  const x1 = g.linearResidualLayerNorm(ctx, `${p}.attention.o_proj`, h, h, x, `${p}.attn_ln`);
  const I = c.intermediate_size;
  const upGate = g.linear(x1, `${p}.mlp.up_gate_proj`, h, 2 * I, false);
  const [up, gate] = b.node(
    'Split',
    [upGate, b.ints([I, I], 'up_gate_split')],
    { axis: { i: -1 } },
    2,
    'up_gate',
  );
  return g.linearResidualLayerNorm(
    b.op('Mul', [g.activation(gate!), up!]),
    `${p}.mlp.down_proj`,
    I,
    h,
    x1,
    `${p}.mlp_ln`,
  );
}

export const gteNewOnnxGraph: EncoderArchitecture<GteNewConfig>['onnxGraph'] = (g, c, inp, maskBias) => {
  const e = gteEmbeddings(g, c, inp);
  let x = e.x;
  for (let i = 0; i < c.num_hidden_layers; i++) x = gteLayer(g, x, i, inp.attentionMask, maskBias, e.rope);
  return x;
};
