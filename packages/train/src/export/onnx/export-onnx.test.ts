import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { ropeInverseFrequencies } from '../../architectures/gte-new/rope-inverse-frequencies.js';
import { type Fixture, fixtureNames, loadFixture, maxAbsDiff, sliceBatch } from '../test-utils/fixtures.js';
import { encodeOnnx, exportOnnx, type OnnxExportInput } from './export-onnx.js';

const tolerance = 1e-5;
/** Worst difference seen per fixture and output, printed at the end for the report. */
const worst: Record<string, number> = {};
function check(label: string, got: ArrayLike<number>, want: ArrayLike<number>): void {
  const d = maxAbsDiff(got, want);
  worst[label] = Math.max(worst[label] ?? 0, d);
  expect(d, label).toBeLessThan(tolerance);
}

function f32(t: { data: unknown }): Float32Array {
  return t.data as Float32Array;
}

async function session(input: OnnxExportInput): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(encodeOnnx(input));
}

/** Both graph forms: ONNX Runtime's fused contrib operators (the default) and standard ops. */
const graphForms = [
  ['fused', true],
  ['all-fused', { attention: true, skipLayerNorm: true, gelu: true }],
  ['standard', false],
] as const;

/** Feeds for rows `rows` of the reference batch, cut to `len` tokens. */
function feeds(fx: Fixture, rows: readonly number[], len: number, prefix = ''): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) {
    const t = fx.expected.get(`${prefix}${name}`);
    if (!t) continue;
    if (name === 'token_type_ids' && fx.config.model_type !== 'bert') continue;
    const data = BigInt64Array.from(sliceBatch(t.data as BigInt64Array, t.shape, rows, len) as bigint[]);
    out[name] = new ort.Tensor('int64', data, [rows.length, len]);
  }
  return out;
}

/** Number of real tokens in each reference row. */
function lengths(fx: Fixture): number[] {
  const m = fx.expected.get('attention_mask')!;
  const [b, s] = m.shape as [number, number];
  const data = m.data as BigInt64Array;
  return Array.from({ length: b }, (_, r) => {
    let n = 0;
    for (let t = 0; t < s; t++) n += Number(data[r * s + t]);
    return n;
  });
}

describe.each(
  graphForms.flatMap(([form, fusedOps]) => fixtureNames.map((name) => [name, form, fusedOps] as const)),
)('ONNX export matches Hugging Face: %s (%s ops)', (name, form, fusedOps) => {
  const fx = loadFixture(name);
  const isBert = name.includes('bert-uncased');
  const hasPooler = !name.includes('gte');

  it.skipIf(!fx)('last hidden state, CLS + L2 norm and pooler, with dynamic batch and length', async () => {
    const s = await session({
      config: fx!.config,
      weights: fx!.weights,
      pooling: 'cls',
      normalize: true,
      fusedOps,
    });
    expect(s.inputNames).toEqual(
      isBert ? ['input_ids', 'attention_mask', 'token_type_ids'] : ['input_ids', 'attention_mask'],
    );
    expect(s.outputNames).toEqual(
      hasPooler
        ? ['last_hidden_state', 'sentence_embedding', 'pooler_output']
        : ['last_hidden_state', 'sentence_embedding'],
    );
    const hShape = fx!.expected.get('last_hidden_state_f32')!.shape;
    const [batch, seq, hidden] = hShape as [number, number, number];
    const lens = lengths(fx!);
    // Three shapes through one session: the full batch, two rows cut to their longest, one row unpadded.
    const runs: { rows: number[]; len: number }[] = [
      { rows: Array.from({ length: batch }, (_, i) => i), len: seq },
      { rows: [2, 0], len: Math.max(lens[2]!, lens[0]!) },
      { rows: [1], len: lens[1]! },
    ];
    for (const { rows, len } of runs) {
      const out = await s.run(feeds(fx!, rows, len));
      expect(out.last_hidden_state!.dims).toEqual([rows.length, len, hidden]);
      check(
        `${name} ${form} last_hidden_state`,
        f32(out.last_hidden_state!),
        sliceBatch(f32(fx!.expected.get('last_hidden_state_f32')!), hShape, rows, len) as number[],
      );
      const want = fx!.expected.get('cls_normalized_f32')!;
      check(
        `${name} ${form} cls_normalized`,
        f32(out.sentence_embedding!),
        sliceBatch(f32(want), [want.shape[0]!, 1, hidden], rows, 1) as number[],
      );
      if (hasPooler) {
        const p = fx!.expected.get('pooler_output_f32')!;
        check(
          `${name} ${form} pooler_output`,
          f32(out.pooler_output!),
          sliceBatch(f32(p), [p.shape[0]!, 1, hidden], rows, 1) as number[],
        );
      }
    }
    await s.release();
  });

  // Only the BERT fixture has mean-pooled references and a sentence pair.
  if (!isBert) return;
  it.skipIf(!fx)('mean pooling with and without L2 norm, and a token-type pair', async () => {
    for (const normalize of [false, true]) {
      const s = await session({
        config: fx!.config,
        weights: fx!.weights,
        pooling: 'mean',
        normalize,
        poolerOutput: false,
        fusedOps,
      });
      expect(s.outputNames).toEqual(['last_hidden_state', 'sentence_embedding']);
      const [batch, seq] = fx!.expected.get('input_ids')!.shape as [number, number];
      const rows = Array.from({ length: batch }, (_, i) => i);
      const out = await s.run(feeds(fx!, rows, seq));
      check(
        `${name} ${form} ${normalize ? 'mean_normalized' : 'mean_pooled'}`,
        f32(out.sentence_embedding!),
        f32(fx!.expected.get(normalize ? 'mean_normalized_f32' : 'mean_pooled_f32')!),
      );
      const pairShape = fx!.expected.get('pair_input_ids')!.shape as [number, number];
      const pair = await s.run(feeds(fx!, [0], pairShape[1], 'pair_'));
      check(
        `${name} ${form} pair_last_hidden_state`,
        f32(pair.last_hidden_state!),
        f32(fx!.expected.get('pair_last_hidden_state_f32')!),
      );
      await s.release();
    }
  });
});

describe.each(
  graphForms.flatMap(([form, fusedOps]) => fixtureNames.map((name) => [name, form, fusedOps] as const)),
)('CLS-only graph (last layer at position 0) matches Hugging Face: %s (%s ops)', (name, form, fusedOps) => {
  const fx = loadFixture(name);
  const input = () => ({
    config: fx!.config,
    weights: fx!.weights,
    pooling: 'cls' as const,
    normalize: true,
    fusedOps,
    clsOnly: true,
  });
  if (name.includes('gte')) {
    it.skipIf(!fx)('is refused for gte NewModel (no BERT-style self-attention)', () => {
      expect(() => encodeOnnx(input())).toThrow(/no CLS-only graph/);
    });
    return;
  }
  it.skipIf(!fx)('cls_hidden_state, CLS + L2 norm and pooler, with dynamic batch and length', async () => {
    const s = await session(input());
    expect(s.outputNames).toEqual(['cls_hidden_state', 'sentence_embedding', 'pooler_output']);
    const hShape = fx!.expected.get('last_hidden_state_f32')!.shape;
    const [batch, seq, hidden] = hShape as [number, number, number];
    const lens = lengths(fx!);
    const runs = [
      { rows: Array.from({ length: batch }, (_, i) => i), len: seq },
      { rows: [2, 0], len: Math.max(lens[2]!, lens[0]!) },
      { rows: [1], len: lens[1]! },
    ];
    for (const { rows, len } of runs) {
      const out = await s.run(feeds(fx!, rows, len));
      expect(out.cls_hidden_state!.dims).toEqual([rows.length, hidden]);
      // Position 0 of the reference's last hidden state (computed over the full batch length).
      check(
        `${name} ${form} cls-only cls_hidden_state`,
        f32(out.cls_hidden_state!),
        sliceBatch(f32(fx!.expected.get('last_hidden_state_f32')!), hShape, rows, 1) as number[],
      );
      const want = fx!.expected.get('cls_normalized_f32')!;
      check(
        `${name} ${form} cls-only cls_normalized`,
        f32(out.sentence_embedding!),
        sliceBatch(f32(want), [want.shape[0]!, 1, hidden], rows, 1) as number[],
      );
      const p = fx!.expected.get('pooler_output_f32')!;
      check(
        `${name} ${form} cls-only pooler_output`,
        f32(out.pooler_output!),
        sliceBatch(f32(p), [p.shape[0]!, 1, hidden], rows, 1) as number[],
      );
    }
    await s.release();
    expect(() => encodeOnnx({ ...input(), pooling: 'mean' })).toThrow(/needs cls pooling/);
  });
});

describe('RoPE tables (gte NewModel, NTK scaling)', () => {
  const fx = loadFixture('tiny-gte-multilingual-newmodel');
  it.skipIf(!fx)('inverse frequencies and cos/sin tables match the reference', () => {
    const c = fx!.config as {
      hidden_size: number;
      num_attention_heads: number;
      rope_theta: number;
      rope_scaling: { factor: number };
    };
    const d = c.hidden_size / c.num_attention_heads;
    const inv = ropeInverseFrequencies(d, c.rope_theta, c.rope_scaling);
    const want = f32(fx!.expected.get('rope_inv_freq_effective')!);
    expect(maxAbsDiff(inv, want)).toBeLessThan(1e-9);
    // The graph computes cos(pos * inv_freq) per half in float32, as the reference cache does.
    const cos = fx!.expected.get('rope_cos_first16')!;
    const sin = fx!.expected.get('rope_sin_first16')!;
    const gotCos: number[] = [];
    const gotSin: number[] = [];
    for (let p = 0; p < 16; p++) {
      for (let j = 0; j < d; j++) {
        const angle = Math.fround(p * inv[j % (d / 2)]!);
        gotCos.push(Math.cos(angle));
        gotSin.push(Math.sin(angle));
      }
    }
    expect(maxAbsDiff(gotCos, f32(cos))).toBeLessThan(1e-6);
    expect(maxAbsDiff(gotSin, f32(sin))).toBeLessThan(1e-6);
    // Without scaling, plain 1/theta^(2i/d).
    expect(Array.from(ropeInverseFrequencies(4, 10000, null))).toEqual([1, Math.fround(1 / 100)]);
  });
});

describe('ONNX file', () => {
  const fx = loadFixture('tiny-xlm-roberta-unigram');
  it.skipIf(!fx)('is written atomically and loads from disk; bad weights are refused by name', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dv-onnx-')), 'model.onnx');
    exportOnnx(path, {
      config: fx!.config,
      weights: fx!.weights,
      pooling: 'mean',
      normalize: true,
      metadata: { run: 'r1' },
    });
    const s = await ort.InferenceSession.create(readFileSync(path));
    expect(s.outputNames).toContain('sentence_embedding');
    await s.release();
    const broken = new Map(fx!.weights);
    broken.delete('encoder.layer.1.attention.self.key.bias');
    expect(() =>
      encodeOnnx({ config: fx!.config, weights: broken, pooling: 'cls', normalize: false }),
    ).toThrow(/missing weight "encoder.layer.1.attention.self.key.bias"/);
    const misshapen = new Map(fx!.weights);
    misshapen.set('encoder.layer.0.intermediate.dense.weight', {
      shape: [32, 37],
      data: new Float32Array(37 * 32),
    });
    expect(() =>
      encodeOnnx({ config: fx!.config, weights: misshapen, pooling: 'cls', normalize: false }),
    ).toThrow(/weight "encoder.layer.0.intermediate.dense.weight": expected shape \[37,32\], got \[32,37\]/);
    expect(() =>
      encodeOnnx({
        config: { ...fx!.config, hidden_act: 'swish' },
        weights: fx!.weights,
        pooling: 'cls',
        normalize: false,
      }),
    ).toThrow(/unsupported or invalid encoder config: hidden_act/);
  });
});

describe('report', () => {
  it('prints the worst differences', () => {
    console.log(`ONNX vs Hugging Face, max |diff|: ${JSON.stringify(worst, null, 1)}`);
    expect(true).toBe(true);
  });
});
