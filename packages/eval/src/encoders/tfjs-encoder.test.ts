import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng, FormatterSettings, formatQuery } from '@dv/core';
import { saveCheckpoint, TfjsEncoder, TransformerEncoder, tf } from '@dv/train';
import { describe, expect, it } from 'vitest';
import { createRanker } from '../runners/model-registry.js';
import { rankModes } from '../runners/rank-modes.js';
import { DenseRanker } from '../search/ranker.js';
import { miniCorpus, miniModelFolder } from '../test-utils/mini-model.js';
import { tinyFollowIrSet } from '../test-utils/test-sets.js';
import { OnnxEncoder } from './onnx-encoder.js';

const maxDiff = (a: Float32Array, b: Float32Array) => {
  expect(a.length).toBe(b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
};

// Ten texts of different lengths: more than one internal batch of 4, padding in every batch.
const texts = [...miniCorpus.slice(0, 8), 'bass', 'an unseen word: zyxt'];

describe('tfjs encoder vs the ONNX export of the same mini model (default backend)', () => {
  for (const [backbone, pooling] of [
    ['mini-bert', 'mean'],
    ['mini-gte', 'cls'],
  ] as const) {
    it(`${backbone} (${pooling} pooling): embeddings within 1e-5 of onnxruntime, batches of 4`, async () => {
      const { dir } = await miniModelFolder(backbone, pooling);
      const tfjs = await TfjsEncoder.fromDir(dir, { batchSize: 4 });
      const onnx = await OnnxEncoder.fromDir(dir);
      expect(tfjs.settings).toMatchObject({ backend: 'tfjs', pooling, normalize: true, maxLength: 512 });
      expect(tfjs.settings.weightsSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(tfjs.dim).toBe(onnx.dim);
      const tensorsBefore = tf.memory().numTensors;
      const got = await tfjs.encodeDocuments(texts);
      expect(tf.memory().numTensors).toBe(tensorsBefore); // every batch's tensors are freed
      const want = await onnx.encodeDocuments(texts);
      const d = maxDiff(got, want);
      console.info(`${backbone} on tfjs backend '${tfjs.backend.tfjsBackend}': max |tfjs - onnx| = ${d}`);
      expect(d).toBeLessThan(1e-5);
      // Rows differ from each other (a broken pooling that returned one row for all would pass above only by accident).
      expect(maxDiff(got.subarray(0, tfjs.dim), got.subarray(tfjs.dim, 2 * tfjs.dim))).toBeGreaterThan(1e-3);
      expect(Math.hypot(...got.subarray(0, tfjs.dim))).toBeCloseTo(1, 5);
      expect(await tfjs.encodeQueries([])).toEqual(new Float32Array(0));
      await tfjs.close();
      await onnx.close();
    });
  }

  it('queries formatted with an instruction: the same strings and scores as the ONNX encoder', async () => {
    const { dir } = await miniModelFolder('mini-bert', 'cls');
    const formatter = FormatterSettings.parse({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    const tfjs = await TfjsEncoder.fromDir(dir, { formatter });
    const onnx = await OnnxEncoder.fromDir(dir, { formatter });
    expect(tfjs.formatter).toEqual(formatter);
    const q = formatQuery(tfjs.formatter, 'bass', 'only the fish');
    expect(q).toBe('query: bass only the fish');
    const withInstruction = await tfjs.encodeQueries([q]);
    expect(maxDiff(withInstruction, await onnx.encodeQueries([q]))).toBeLessThan(1e-5);
    expect(maxDiff(withInstruction, await tfjs.encodeQueries(['query: bass']))).toBeGreaterThan(1e-4);
    // Through the runner: every mode's run scores agree.
    const set = tinyFollowIrSet();
    const a = await rankModes(set, new DenseRanker(tfjs), { topK: 10 });
    const b = await rankModes(set, new DenseRanker(onnx), { topK: 10 });
    for (const mode of ['og', 'changed'] as const)
      for (const [qid, row] of b[mode]!)
        for (const [doc, score] of row) expect(a[mode]!.get(qid)!.get(doc)).toBeCloseTo(score, 5);
  });

  it('loads a @dv/train checkpoint with the tokenizer of its run folder', async () => {
    const { dir, root, tokenizerJson } = await miniModelFolder('mini-bert', 'mean');
    const model = TransformerEncoder.fromPretrained(dir);
    const ckpt = join(root, 'run', 'step-000003');
    await saveCheckpoint(ckpt, { encoder: model, step: 3, rng: createRng(1) });
    model.dispose();
    await expect(TfjsEncoder.fromDir(ckpt)).rejects.toThrow(/no tokenizer\.json in the folder or its parent/);
    copyFileSync(tokenizerJson, join(root, 'run', 'tokenizer.json'));
    // No sentence-transformers metadata in a checkpoint: pooling is given (default would be cls).
    const fromCkpt = await TfjsEncoder.fromDir(ckpt, { pooling: 'mean' });
    expect((await TfjsEncoder.fromDir(ckpt)).settings.pooling).toBe('cls');
    const fromHf = await TfjsEncoder.fromDir(dir);
    expect(fromCkpt.settings.weightsSha256).not.toBe(''); // hashed like any folder
    expect(maxDiff(await fromCkpt.encodeDocuments(texts), await fromHf.encodeDocuments(texts))).toBeLessThan(
      1e-6,
    );
  });

  it('a folder without model.safetensors is a data error naming the missing file', async () => {
    const { root, dir } = await miniModelFolder('mini-bert', 'cls');
    const broken = join(root, 'no-weights');
    mkdirSync(broken);
    for (const f of ['config.json', 'tokenizer.json']) copyFileSync(join(dir, f), join(broken, f));
    const err = await TfjsEncoder.fromDir(broken).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('DataError');
    expect((err as Error).message).toContain(
      `${join(broken, 'model.safetensors')}: model.safetensors is missing`,
    );
    // @dv/eval alone knows no tfjs models: the CLI registers them (apps/pipeline tfjs-model.ts).
    await expect(createRanker(`tfjs:${broken}`)).rejects.toThrow(/unknown model "tfjs:/);
  });

  it('follows modules.json like sentence-transformers: no Normalize module keeps raw norms, in both encoders', async () => {
    const { dir } = await miniModelFolder('mini-bert', 'cls');
    writeFileSync(
      join(dir, 'modules.json'),
      JSON.stringify([
        { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
        { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ]),
    );
    const e = await TfjsEncoder.fromDir(dir);
    const o = await OnnxEncoder.fromDir(dir);
    expect(e.settings.normalize).toBe(false);
    expect(o.settings.normalize).toBe(false);
    const row = await e.encodeDocuments(['bass']);
    expect(Math.abs(Math.hypot(...row) - 1)).toBeGreaterThan(1e-3);
    expect(maxDiff(row, await o.encodeDocuments(['bass']))).toBeLessThan(1e-5);
    const forced = await TfjsEncoder.fromDir(dir, { normalize: true });
    expect(Math.hypot(...(await forced.encodeDocuments(['bass'])))).toBeCloseTo(1, 5);
    const forcedOnnx = await OnnxEncoder.fromDir(dir, { normalize: true, pooling: 'mean' });
    expect(forcedOnnx.settings).toMatchObject({ normalize: true, pooling: 'mean' });
    // An unsupported pooling mode is a data error naming the Pooling config.
    writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_max_tokens: true }));
    await expect(OnnxEncoder.fromDir(dir)).rejects.toThrow(join(dir, '1_Pooling', 'config.json'));
    await expect(TfjsEncoder.fromDir(dir)).rejects.toThrow(/pooling_mode_max_tokens is not supported/);
  });
});

describe('importing @dv/eval', () => {
  it('does not load tfjs (the tfjs encoder imports @dv/train when it is created)', async () => {
    // tfjs-core creates its engine, globalThis._tfengine, when its module loads.
    const probe =
      "await import('@dv/eval'); const before = '_tfengine' in globalThis;" +
      "await import('@dv/train'); console.log(JSON.stringify([before, '_tfengine' in globalThis]));";
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', '--input-type=module', '-e', probe],
      { cwd: join(dirname(fileURLToPath(import.meta.url)), '..', '..') },
    );
    expect(JSON.parse(stdout)).toEqual([false, true]);
  });
});
