import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, hashFile } from '@dv/core';
import { dataExternalDir } from '@dv/core/test-utils';
import {
  type EncoderWeight,
  encoderWeightShapes,
  encoderWeightsFromSafetensors,
  exportOnnx,
  parseEncoderConfig,
  readSafetensors,
} from '@dv/train';
import { wordPieceTokenizerJson } from '@dv/train/testing';
import { describe, expect, it } from 'vitest';
import { modelMaxLength, OnnxEncoder } from './onnx-encoder.js';

/**
 * ONNX Runtime's int8 products on a CPU without VNNI (AVX2 only) add pairs of u8 x s8 products
 * with vpmaddubsw, which saturates at int16, so int8 outputs sit further from float32 there
 * (measured on an AVX2-only AMD EPYC: min cosine 0.966 against 0.9997 with AVX-512 VNNI).
 */
const INT8_VNNI = (() => {
  try {
    return /\b(avx512_vnni|avx_vnni)\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return true;
  }
})();

/** A minimal BERT-style WordPiece tokenizer.json over a 16-token vocabulary. */
function tinyTokenizerJson(): string {
  const words = ['bass', 'fish', 'guitar', 'string', 'lake', 'a', 'is', 'the', 'music', '##s', 'of'];
  const vocab: Record<string, number> = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, '[MASK]': 4 };
  for (const w of words) vocab[w] = Object.keys(vocab).length;
  return wordPieceTokenizerJson(vocab);
}

let tinyWeights: { config: ReturnType<typeof parseEncoderConfig>; weights: Map<string, EncoderWeight> };

/** Exports a random 2-layer BERT (hidden 32) with @dv/train's ONNX exporter; returns the folder. */
function tinyModelDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dv-onnx-'));
  const config = parseEncoderConfig({
    model_type: 'bert',
    vocab_size: 16,
    hidden_size: 32,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 48,
    hidden_act: 'gelu',
    max_position_embeddings: 64,
    type_vocab_size: 2,
    layer_norm_eps: 1e-12,
    pad_token_id: 0,
  });
  const rng = createRng(3);
  const weights = new Map<string, EncoderWeight>();
  for (const [name, spec] of encoderWeightShapes(config)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const norm = spec.shape.length === 1 && name.includes('LayerNorm') && name.endsWith('.weight');
    weights.set(name, {
      shape: spec.shape,
      data: Float32Array.from({ length: n }, () => (norm ? 1 : 0) + 0.2 * rng.normal()),
    });
  }
  exportOnnx(join(dir, 'model.onnx'), { config, weights, pooling: 'cls', normalize: true });
  tinyWeights = { config, weights };
  writeFileSync(join(dir, 'tokenizer.json'), tinyTokenizerJson());
  return dir;
}

const maxDiff = (a: Float32Array, b: Float32Array) =>
  a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

describe('ONNX encoder (tiny model from the @dv/train exporter)', () => {
  const dir = tinyModelDir();
  const texts = ['bass fish', 'the bass guitar is a string music of the lake', 'unknownword'];

  it('encodes normalised rows; padding in a batch changes nothing', async () => {
    const e = await OnnxEncoder.fromDir(dir, { batchSize: 8 });
    expect(e.dim).toBe(32);
    expect(e.settings.pooling).toBe('model');
    expect(e.settings.modelSha256).toMatch(/^[0-9a-f]{64}$/);
    const batch = await e.encodeDocuments(texts);
    for (let i = 0; i < texts.length; i++) {
      const row = batch.subarray(i * 32, (i + 1) * 32);
      expect(Math.hypot(...row)).toBeCloseTo(1, 5);
      const alone = await e.encodeQueries([texts[i]!]);
      expect(maxDiff(alone, row)).toBeLessThan(1e-5);
    }
    expect(maxDiff(batch.subarray(0, 32), batch.subarray(32, 64))).toBeGreaterThan(1e-3);
    await e.close();
  });

  it('cls pooling of last_hidden_state equals the exported sentence_embedding', async () => {
    const model = await OnnxEncoder.fromDir(dir);
    const cls = await OnnxEncoder.fromDir(dir, { pooling: 'cls' });
    expect(maxDiff(await model.encodeDocuments(texts), await cls.encodeDocuments(texts))).toBeLessThan(1e-5);
    expect(cls.settings.pooling).toBe('cls');
    const mean = await OnnxEncoder.fromDir(dir, { pooling: 'mean' });
    expect(maxDiff(await model.encodeDocuments(texts), await mean.encodeDocuments(texts))).toBeGreaterThan(
      1e-3,
    );
  });

  it('cls pooling prefers onnx/model_cls.onnx (the CLS embedding graph): the same rows', async () => {
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    const clsPath = join(dir, 'onnx', 'model_cls.onnx');
    exportOnnx(clsPath, { ...tinyWeights, pooling: 'cls', normalize: true, clsOnly: true });
    const fast = await OnnxEncoder.fromDir(dir, { pooling: 'cls', batchSize: 2 });
    const full = await OnnxEncoder.fromDir(dir, { pooling: 'cls', batchSize: 2, clsGraph: false });
    const { sha256 } = await hashFile(clsPath);
    expect(fast.settings.modelSha256).toBe(sha256);
    expect(full.settings.modelSha256).not.toBe(sha256);
    expect(maxDiff(await fast.encodeDocuments(texts), await full.encodeDocuments(texts))).toBeLessThan(1e-6);
    // Mean pooling never loads it, and refuses it when named directly (no last_hidden_state).
    const mean = await OnnxEncoder.fromDir(dir, { pooling: 'mean' });
    expect(mean.settings.modelSha256).not.toBe(sha256);
    await expect(
      OnnxEncoder.create({ modelPath: clsPath, tokenizerPath: join(dir, 'tokenizer.json'), pooling: 'mean' }),
    ).rejects.toThrow(/needs a "last_hidden_state" output/);
    // int8: the folder's int8 CLS graph, near float32.
    const int8Path = join(dir, 'onnx', 'model_qint8_cls.onnx');
    exportOnnx(int8Path, {
      ...tinyWeights,
      pooling: 'cls',
      normalize: true,
      clsOnly: true,
      precision: 'int8',
    });
    const int8 = await OnnxEncoder.fromDir(dir, { pooling: 'cls', precision: 'int8' });
    expect(int8.settings.modelSha256).toBe((await hashFile(int8Path)).sha256);
    expect(maxDiff(await int8.encodeDocuments(texts), await full.encodeDocuments(texts))).toBeLessThan(
      INT8_VNNI ? 0.05 : 0.1,
    );
    for (const e of [fast, full, mean, int8]) await e.close();
    rmSync(join(dir, 'onnx'), { recursive: true });
  });

  it('caps inputs at the length the folder declares (longer texts are truncated, not refused)', async () => {
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 32 }));
    const e = await OnnxEncoder.fromDir(dir);
    expect(e.settings.maxLength).toBe(32);
    const long = Array.from({ length: 100 }, () => 'bass fish').join(' '); // ~200 tokens > 64 positions
    const m = await e.encodeDocuments([long, 'bass']);
    expect(Math.hypot(...m.subarray(0, 32))).toBeCloseTo(1, 5);
    rmSync(join(dir, 'tokenizer_config.json'));
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ model_type: 'xlm-roberta', max_position_embeddings: 66 }),
    );
    expect(modelMaxLength(dir)).toBe(64);
    rmSync(join(dir, 'config.json'));
    expect(modelMaxLength(dir)).toBe(512);
  });

  it('refuses a folder without a model', async () => {
    await expect(OnnxEncoder.fromDir(mkdtempSync(join(tmpdir(), 'dv-empty-')))).rejects.toThrow(
      /no model\.onnx/,
    );
  });
});

describe('ONNX encoder vs Hugging Face reference outputs (third-party fixture)', () => {
  const fx = dataExternalDir('the HF reference check', 'models', 'tiny-bert-uncased-wordpiece');

  it.skipIf(!fx)(
    'real bert-base-uncased tokenizer + exported model match transformers (CLS and mean)',
    async () => {
      const expected = JSON.parse(readFileSync(join(fx!, 'expected.json'), 'utf8')) as {
        texts: string[];
        tensors: Record<string, { shape: number[]; data: number[][] }>;
      };
      const config = parseEncoderConfig(JSON.parse(readFileSync(join(fx!, 'config.json'), 'utf8')));
      const weights = encoderWeightsFromSafetensors(readSafetensors(join(fx!, 'model.safetensors')));
      const dir = mkdtempSync(join(tmpdir(), 'dv-onnx-hf-'));
      exportOnnx(join(dir, 'model.onnx'), { config, weights, pooling: 'cls', normalize: true });
      tinyWeights = { config, weights };
      const opts = { modelPath: join(dir, 'model.onnx'), tokenizerPath: join(fx!, 'tokenizer.json') };
      for (const [pooling, key] of [
        ['model', 'cls_normalized_f32'],
        ['mean', 'mean_normalized_f32'],
      ] as const) {
        const e = await OnnxEncoder.create({ ...opts, pooling });
        const got = await e.encodeDocuments(expected.texts);
        const want = Float32Array.from(expected.tensors[key]!.data.flat());
        expect(maxDiff(got, want), key).toBeLessThan(1e-5);
        await e.close();
      }
    },
  );
});
