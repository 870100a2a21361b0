// checkEngineModel on folders we build here (no Python): a complete sentence-transformers folder
// passes with probes our encoder reproduces, and each way an engine's output can be unusable
// (no folder, a missing file, embeddings of another model) is a DataError naming it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../architectures/registry.js';
import { TfjsEncoder } from '../encoders/tfjs-encoder.js';
import { exportHuggingFace } from '../export/huggingface/export-hugging-face.js';
import { miniConfigs, randomEncoderWeights } from '../export/test-utils/random-encoder.js';
import { trainWordPiece } from '../tokenizer/train-word-piece.js';
import { checkEngineModel } from './check-engine-model.js';

const texts = ['a red animal thing', 'an old music thing', 'a small food tool', 'deep soft places'];
let output: string;
let final: string;
let mine: number[][];

beforeAll(async () => {
  output = mkdtempSync(join(tmpdir(), 'dv-check-engine-model-'));
  final = join(output, 'final');
  const tok = await trainWordPiece(texts, { vocabSize: 60 });
  const tokenizerJson = join(output, 'tokenizer.src.json');
  writeFileSync(tokenizerJson, tok.json);
  const raw = miniConfigs(tok.vocabSize).bert;
  await exportHuggingFace(final, {
    config: raw,
    weights: randomEncoderWeights(parseEncoderConfig(raw), 3),
    tokenizerJson,
    pooling: 'mean',
    normalize: true,
  });
  const enc = await TfjsEncoder.fromDir(final);
  const m = await enc.encodeQueries(texts);
  mine = texts.map((_, i) => Array.from(m.subarray(i * enc.dim, (i + 1) * enc.dim)));
  await enc.close();
}, 60_000);

const probe = (embeddings: number[][]) =>
  writeFileSync(join(output, 'probe.json'), JSON.stringify({ texts, embeddings }));

describe('checkEngineModel', () => {
  it("passes a folder that loads and gives the engine's embeddings", async () => {
    probe(mine);
    const r = await checkEngineModel(final);
    expect(r.probes).toBe(4);
    expect(r.minCosine).toBeGreaterThan(0.99999);
    expect(r.dim).toBe(mine[0]!.length);
  });

  it('refuses embeddings of another model, naming the probe and the cosine', async () => {
    // the engine's vectors rotated: another model, same dimensions
    probe(mine.map((v) => [...v.slice(1), v[0]!]));
    await expect(checkEngineModel(final)).rejects.toThrow(/disagree on probe 0 .*cosine -?[\d.]+ < 0\.999/);
    probe(mine.map((v) => v.slice(1)));
    await expect(checkEngineModel(final)).rejects.toThrow(/probe 0 has \d+ dimensions, the model \d+/);
  });

  it('refuses a missing folder or a folder without the sentence-transformers files', async () => {
    await expect(checkEngineModel(join(output, 'nope'))).rejects.toThrow(/the engine wrote no model folder/);
    probe(mine);
    rmSync(join(final, 'modules.json'));
    const err = await checkEngineModel(final).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as Error).message).toMatch(/lacks modules\.json/);
  });
});
