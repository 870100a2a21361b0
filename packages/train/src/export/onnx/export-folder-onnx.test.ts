// The ONNX graphs of an existing folder: our own export (rewritten byte for byte) and a plain
// Hugging Face folder from data-external (the real bert-base-uncased tokenizer and HF's own
// BertModel weights layout, with the `bert.`-less names of a base model), run by onnxruntime-node.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { tinyModelDir } from '../../test-utils/tiny-model-dir.js';
import { exportHuggingFace } from '../huggingface/export-hugging-face.js';
import { miniConfigs, randomEncoderWeights } from '../test-utils/random-encoder.js';
import { exportFolderOnnx } from './export-folder-onnx.js';

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

const tmp = () => mkdtempSync(join(tmpdir(), 'dv-folder-onnx-'));

async function sentenceEmbedding(path: string, ids: number[][], mask: number[][]): Promise<Float32Array> {
  const s = await ort.InferenceSession.create(path);
  const shape = [ids.length, ids[0]!.length];
  const t = (v: number[][]) => new ort.Tensor('int64', BigInt64Array.from(v.flat(), BigInt), shape);
  const feeds: Record<string, ort.Tensor> = { input_ids: t(ids), attention_mask: t(mask) };
  if (s.inputNames.includes('token_type_ids')) feeds.token_type_ids = t(ids.map((r) => r.map(() => 0)));
  const out = (await s.run(feeds, ['sentence_embedding'])).sentence_embedding!.data as Float32Array;
  await s.release();
  return out;
}

describe('exportFolderOnnx', () => {
  it("rewrites our export's float32 and int8 graphs byte for byte, with the folder's pooling", async () => {
    const raw = miniConfigs().bert;
    const dir = tmp();
    const tokenizerJson = join(tmp(), 'tokenizer.json');
    writeFileSync(tokenizerJson, '{"version":"1.0","model":{"type":"WordPiece","vocab":{"a":0}}}');
    const written = await exportHuggingFace(dir, {
      config: raw,
      weights: randomEncoderWeights(parseEncoderConfig(raw), 5),
      tokenizerJson,
      pooling: 'mean',
      normalize: false,
      withOnnx: ['fp32', 'int8'],
    });
    expect(written).toContain(join(dir, 'onnx', 'model.onnx'));
    expect(written).toContain(join(dir, 'onnx', 'model_qint8.onnx'));
    for (const precision of ['fp32', 'int8'] as const) {
      const file = join(dir, 'onnx', precision === 'int8' ? 'model_qint8.onnx' : 'model.onnx');
      const before = readFileSync(file);
      // An existing graph is never replaced silently.
      expect(() => exportFolderOnnx(dir, { precision })).toThrow(/exists; replace it explicitly/);
      expect(exportFolderOnnx(dir, { precision, overwrite: true }).files).toEqual([file]);
      expect(readFileSync(file).equals(before), precision).toBe(true);
      rmSync(file);
      const r = exportFolderOnnx(dir, { precision });
      expect(r).toEqual({ files: [file], precision, pooling: 'mean', normalize: false });
      expect(readFileSync(file).equals(before), precision).toBe(true);
    }
  });

  const tiny = tinyModelDir('tiny-bert-uncased-wordpiece');
  it.skipIf(!tiny)(
    'makes a plain Hugging Face folder encodable; its int8 graph stays near float32',
    async () => {
      const dir = tmp();
      for (const f of ['config.json', 'model.safetensors', 'tokenizer.json'])
        copyFileSync(join(tiny!, f), join(dir, f));
      // No modules.json or 1_Pooling: the folder does not say how it pools.
      expect(() => exportFolderOnnx(dir, { precision: 'int8' })).toThrow(/does not say how it pools/);
      const fp32 = exportFolderOnnx(dir, { pooling: 'cls' });
      const int8 = exportFolderOnnx(dir, { pooling: 'cls', precision: 'int8' });
      expect(fp32.normalize).toBe(true);
      const ids = [
        [101, 7592, 2088, 2003, 1037, 3899, 102],
        [101, 2023, 102, 0, 0, 0, 0],
      ];
      const mask = ids.map((r) => r.map((v) => (v === 0 ? 0 : 1)));
      const a = await sentenceEmbedding(fp32.files[0]!, ids, mask);
      const b = await sentenceEmbedding(int8.files[0]!, ids, mask);
      const h = a.length / 2;
      for (let r = 0; r < 2; r++) {
        let dot = 0;
        for (let j = 0; j < h; j++) dot += a[r * h + j]! * b[r * h + j]!;
        expect(dot).toBeGreaterThan(INT8_VNNI ? 0.99 : 0.95); // unit rows
        expect(dot).toBeLessThan(1 - 1e-9); // and not the float32 graph again
      }
    },
  );

  // issue 22: the standard-operator graph (for runtimes other than ONNX Runtime) had no way out of a folder
  it('fusedOps: false writes a graph without com.microsoft operators that encodes as the fused one', async () => {
    const raw = miniConfigs().bert;
    const dir = tmp();
    const tokenizerJson = join(tmp(), 'tokenizer.json');
    writeFileSync(tokenizerJson, '{"version":"1.0","model":{"type":"WordPiece","vocab":{"a":0}}}');
    await exportHuggingFace(dir, {
      config: raw,
      weights: randomEncoderWeights(parseEncoderConfig(raw), 7),
      tokenizerJson,
      pooling: 'mean',
      normalize: true,
    });
    const file = join(dir, 'onnx', 'model.onnx');
    exportFolderOnnx(dir);
    const fusedBytes = readFileSync(file);
    // the domain string is stored verbatim in every contrib node and in the opset imports
    expect(fusedBytes.includes('com.microsoft')).toBe(true);
    const ids = [
      [2, 5, 7, 9, 3],
      [2, 6, 3, 0, 0],
    ];
    const mask = ids.map((r) => r.map((v) => (v === 0 ? 0 : 1)));
    const fused = await sentenceEmbedding(file, ids, mask);
    expect(exportFolderOnnx(dir, { fusedOps: false, overwrite: true }).files).toEqual([file]);
    const standard = readFileSync(file);
    expect(standard.includes('com.microsoft')).toBe(false);
    const plain = await sentenceEmbedding(file, ids, mask);
    let diff = 0;
    for (let i = 0; i < fused.length; i++) diff = Math.max(diff, Math.abs(fused[i]! - plain[i]!));
    expect(diff).toBeLessThan(1e-5);
    expect(() => exportFolderOnnx(dir, { fusedOps: false, precision: 'int8' })).toThrow(
      /standard operators only exist for fp32/,
    );
  });

  // issue 24: the CLS embedding graph beside the full one, for a CLS-pooled BERT folder
  it('a CLS-pooled folder also gets the CLS embedding graphs, with the same embeddings as model.onnx', async () => {
    const raw = miniConfigs().bert;
    const dir = tmp();
    const tokenizerJson = join(tmp(), 'tokenizer.json');
    writeFileSync(tokenizerJson, '{"version":"1.0","model":{"type":"WordPiece","vocab":{"a":0}}}');
    const full = join(dir, 'onnx', 'model.onnx');
    const cls = join(dir, 'onnx', 'model_cls.onnx');
    const written = await exportHuggingFace(dir, {
      config: raw,
      weights: randomEncoderWeights(parseEncoderConfig(raw), 9),
      tokenizerJson,
      pooling: 'cls',
      normalize: true,
      withOnnx: ['fp32', 'int8'],
    });
    expect(written.filter((f) => f.startsWith(join(dir, 'onnx')))).toEqual([
      full,
      cls,
      join(dir, 'onnx', 'model_qint8.onnx'),
      join(dir, 'onnx', 'model_qint8_cls.onnx'),
    ]);
    const before = readFileSync(cls);
    expect(() => exportFolderOnnx(dir)).toThrow(/exists; replace it explicitly/);
    expect(exportFolderOnnx(dir, { overwrite: true }).files).toEqual([full, cls]);
    expect(readFileSync(cls).equals(before)).toBe(true);
    const ids = [
      [2, 5, 7, 9, 3],
      [2, 6, 3, 0, 0],
    ];
    const mask = ids.map((r) => r.map((v) => (v === 0 ? 0 : 1)));
    const a = await sentenceEmbedding(full, ids, mask);
    const b = await sentenceEmbedding(cls, ids, mask);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
    expect(diff).toBeLessThan(1e-6);
    // The int8 CLS graph: its activations are quantized per tensor over fewer rows in the last
    // layer, so it is not the int8 full graph's bytes, but within int8 noise of float32.
    const q = await sentenceEmbedding(join(dir, 'onnx', 'model_qint8_cls.onnx'), ids, mask);
    const h = a.length / 2;
    for (let r = 0; r < 2; r++) {
      let dot = 0;
      for (let j = 0; j < h; j++) dot += a[r * h + j]! * q[r * h + j]!;
      expect(dot).toBeGreaterThan(INT8_VNNI ? 0.999 : 0.99);
    }
  });

  it('names the missing file', () => {
    const dir = tmp();
    let err: unknown;
    try {
      exportFolderOnnx(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataError);
    expect(String((err as Error).message)).toMatch(/config\.json|model\.safetensors/);
    // An unsupported architecture is refused before the weights are read (they are garbage here).
    writeFileSync(join(dir, 'config.json'), '{"model_type":"llama"}');
    writeFileSync(join(dir, 'model.safetensors'), 'not safetensors');
    expect(() => exportFolderOnnx(dir, { pooling: 'cls' })).toThrow(
      /config\.json: unsupported or invalid encoder config: model_type/,
    );
  });
});
