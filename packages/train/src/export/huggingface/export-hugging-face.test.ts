import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pooling } from '@dv/core';
import { dataExternalRoot } from '@dv/core/test-utils';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { readSafetensors } from '../../safetensors/index.js';
import type { EncoderWeight } from '../encoder-weights.js';
import { encodeOnnx } from '../onnx/export-onnx.js';
import { type Fixture, loadFixture } from '../test-utils/fixtures.js';
import { findPython, pythonTimeout, runPython } from '../test-utils/python.js';
import { miniConfigs, randomEncoderWeights } from '../test-utils/random-encoder.js';
import { exportHuggingFace, type HuggingFaceExportInput } from './export-hugging-face.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'dv-hf-'));

/** A tokenizer.json stand-in: the exporter copies it through byte for byte. */
function fakeTokenizer(dir: string): string {
  const path = join(dir, 'tokenizer.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: '1.0',
      normalizer: { type: 'BertNormalizer', lowercase: true },
      model: { type: 'WordPiece', vocab: { a: 0 } },
    }),
  );
  return path;
}

describe('Hugging Face layout', () => {
  it.each(Object.entries(miniConfigs()))('writes a complete folder for %s', async (arch, raw) => {
    const out = tmp();
    const weights = randomEncoderWeights(parseEncoderConfig(raw), 3);
    const tokenizerJson = fakeTokenizer(tmp());
    const written = await exportHuggingFace(out, {
      config: raw,
      weights,
      tokenizerJson,
      pooling: 'mean',
      normalize: true,
      withOnnx: true,
    });
    expect(written.map((p) => p.slice(out.length + 1)).sort()).toEqual([
      '1_Pooling/config.json',
      'config.json',
      'config_sentence_transformers.json',
      'model.safetensors',
      'modules.json',
      'onnx/model.onnx',
      'sentence_bert_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(existsSync(join(out, '2_Normalize'))).toBe(true);
    const read = (p: string) => JSON.parse(readFileSync(join(out, p), 'utf8'));
    const config = read('config.json');
    expect(config).toMatchObject({
      ...raw,
      architectures: [{ bert: 'BertModel', 'xlm-roberta': 'XLMRobertaModel', new: 'NewModel' }[arch]],
    });
    if (arch === 'new') expect(config.auto_map.AutoModel).toBe('Alibaba-NLP/new-impl--modeling.NewModel');
    expect(readFileSync(join(out, 'tokenizer.json'))).toEqual(readFileSync(tokenizerJson));
    expect(read('modules.json').map((m: { path: string }) => m.path)).toEqual([
      '',
      '1_Pooling',
      '2_Normalize',
    ]);
    expect(read('1_Pooling/config.json')).toMatchObject({
      word_embedding_dimension: 32,
      pooling_mode_mean_tokens: true,
      pooling_mode_cls_token: false,
    });
    expect(read('sentence_bert_config.json').max_seq_length).toBe(arch === 'xlm-roberta' ? 64 : 66);
    expect(read('tokenizer_config.json')).toMatchObject(
      arch === 'bert' ? { do_lower_case: true, cls_token: '[CLS]' } : { cls_token: '<s>' },
    );
    const st = readSafetensors(join(out, 'model.safetensors'));
    expect(st.metadata.format).toBe('pt');
    expect([...st.tensors.keys()]).toEqual([...weights.keys()]);
    for (const [name, w] of weights) {
      expect(st.tensors.get(name)!.shape).toEqual(w.shape);
      expect(Array.from(st.tensors.get(name)!.data as Float32Array)).toEqual(Array.from(w.data));
    }
    const s = await ort.InferenceSession.create(readFileSync(join(out, 'onnx', 'model.onnx')));
    const ids = new ort.Tensor('int64', BigInt64Array.from([0n, 5n, 7n, 2n, 0n, 9n, 1n, 1n]), [2, 4]);
    const mask = new ort.Tensor('int64', BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 1n, 0n, 0n]), [2, 4]);
    const feeds: Record<string, ort.Tensor> = { input_ids: ids, attention_mask: mask };
    if (arch === 'bert') feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(8), [2, 4]);
    const emb = (await s.run(feeds)).sentence_embedding!.data as Float32Array;
    expect(Math.hypot(...emb.slice(0, 32))).toBeCloseTo(1, 5);
    await s.release();
  });

  it('refuses a tokenizer.json that is not one, and a too long max_seq_length', async () => {
    const raw = miniConfigs().bert;
    const weights = randomEncoderWeights(parseEncoderConfig(raw));
    const bad = join(tmp(), 'tokenizer.json');
    writeFileSync(bad, '{"version": "1.0"}');
    await expect(
      exportHuggingFace(tmp(), {
        config: raw,
        weights,
        tokenizerJson: bad,
        pooling: 'cls',
        normalize: false,
      }),
    ).rejects.toThrow(/tokenizer.json: not a tokenizer.json: no "model" object/);
    await expect(
      exportHuggingFace(tmp(), {
        config: raw,
        weights,
        tokenizerJson: fakeTokenizer(tmp()),
        pooling: 'cls',
        normalize: false,
        maxSeqLength: 100,
      }),
    ).rejects.toThrow(/maxSeqLength 100 exceeds the 66-row position table/);
  });
});

// --- sentence-transformers in Python loads the export and embeds like our ONNX model --------

const python = findPython(['torch', 'transformers', 'sentence_transformers']);
/** Local copy of the Alibaba-NLP/new-impl code (modeling.py, configuration.py) for gte; optional. */
const gteCode = process.env.DV_GTE_NEW_IMPL;

const stScript = `
import json, sys, torch
torch.set_num_threads(1)
from sentence_transformers import SentenceTransformer
out = []
for job in json.load(sys.stdin):
    m = SentenceTransformer(job["dir"], device="cpu", trust_remote_code=job["remote"], local_files_only=True)
    m.eval()
    f = m.tokenize(job["texts"])
    with torch.no_grad():
        emb = m.encode(job["texts"], batch_size=len(job["texts"]), convert_to_numpy=True)
    out.append({"embeddings": emb.tolist(), **{k: f[k].tolist() for k in ("input_ids", "attention_mask", "token_type_ids") if k in f}})
print(json.dumps(out))
`;

interface StJob {
  readonly label: string;
  readonly input: Omit<HuggingFaceExportInput, 'tokenizerJson'> & { tokenizerJson: string };
  readonly texts: readonly string[];
  readonly expectedIds?: readonly (readonly number[])[];
  readonly remote: boolean;
}

function fixtureJob(fx: Fixture, pooling: Pooling, normalize: boolean): StJob {
  const meta = JSON.parse(readFileSync(join(fx.dir, 'expected.json'), 'utf8')) as { texts: string[] };
  const ids = fx.expected.get('input_ids')!;
  const mask = fx.expected.get('attention_mask')!;
  const [b, s] = ids.shape as [number, number];
  const expectedIds = Array.from({ length: b }, (_, r) => {
    const row: number[] = [];
    for (let t = 0; t < s; t++)
      if ((mask.data as BigInt64Array)[r * s + t]) row.push(Number((ids.data as BigInt64Array)[r * s + t]));
    return row;
  });
  return {
    label: `${fx.name} (${pooling}${normalize ? ' + normalize' : ''})`,
    input: {
      config: fx.config,
      weights: fx.weights,
      tokenizerJson: join(fx.dir, 'tokenizer.json'),
      pooling,
      normalize,
    },
    texts: meta.texts,
    expectedIds,
    remote: fx.config.model_type === 'new',
  };
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

describe('sentence-transformers loads the export (Python reference stack)', () => {
  const bert = loadFixture('tiny-bert-uncased-wordpiece');
  const xlmr = loadFixture('tiny-xlm-roberta-unigram');
  const gte = loadFixture('tiny-gte-multilingual-newmodel');
  if (gte && !gteCode) {
    console.warn(
      'skipping gte NewModel in sentence-transformers: it needs trust_remote_code and the Alibaba-NLP/new-impl code, which is not available offline; set DV_GTE_NEW_IMPL to a folder with its modeling.py and configuration.py to include it',
    );
  }
  const jobs: StJob[] = [];
  if (bert) {
    jobs.push(fixtureJob(bert, 'cls', true));
    // A mini model with random weights and the real bert-base-uncased tokenizer: the "trained mini model" path.
    const raw = { ...miniConfigs(30522).bert, hidden_size: 64, intermediate_size: 128 };
    jobs.push({
      label: 'mini BERT, random weights (mean)',
      input: {
        config: raw,
        weights: randomEncoderWeights(parseEncoderConfig(raw), 11),
        tokenizerJson: join(
          dataExternalRoot(),
          'models',
          'bert-base-uncased-tokenizer-json',
          'bert-base-uncased.tokenizer.json',
        ),
        pooling: 'mean',
        normalize: false,
      },
      texts: ['What is Deep Learning?', 'a longer sentence about dense and sparse retrieval models', 'x'],
      remote: false,
    });
  }
  if (xlmr) jobs.push(fixtureJob(xlmr, 'mean', true));
  if (gte && gteCode) jobs.push(fixtureJob(gte, 'cls', true));

  it.skipIf(!python || jobs.length === 0)(
    'same embeddings as the ONNX export (cosine >= 0.9999), same token ids',
    async () => {
      const dirs: string[] = [];
      for (const job of jobs) {
        const dir = tmp();
        await exportHuggingFace(dir, job.input);
        if (job.remote) {
          // Offline stand-in for the Hub code: a local copy, referenced by a local auto_map.
          for (const f of ['modeling.py', 'configuration.py'])
            writeFileSync(join(dir, f), readFileSync(join(gteCode!, f)));
          const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
          cfg.auto_map = { AutoConfig: 'configuration.NewConfig', AutoModel: 'modeling.NewModel' };
          writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg));
        }
        dirs.push(dir);
      }
      const results = runPython(
        python!,
        stScript,
        jobs.map((j, i) => ({ dir: dirs[i], texts: j.texts, remote: j.remote })),
      ) as {
        embeddings: number[][];
        input_ids: number[][];
        attention_mask: number[][];
        token_type_ids?: number[][];
      }[];
      const summary: Record<string, { minCosine: number; maxAbsDiff: number }> = {};
      for (const [i, job] of jobs.entries()) {
        const r = results[i]!;
        const [b, s] = [r.input_ids.length, r.input_ids[0]!.length];
        if (job.expectedIds) {
          expect(r.input_ids.map((row, k) => row.filter((_, t) => r.attention_mask[k]![t]))).toEqual(
            job.expectedIds,
          );
        }
        // The full graph, and for CLS-pooled BERT / XLM-R also the CLS embedding graph (model_cls.onnx).
        const clsGraph = job.input.pooling === 'cls' && !job.remote;
        for (const clsOnly of clsGraph ? [false, true] : [false]) {
          const label = clsOnly ? `${job.label}, CLS-only graph` : job.label;
          const session = await ort.InferenceSession.create(
            encodeOnnx({
              config: job.input.config,
              weights: job.input.weights as Map<string, EncoderWeight>,
              pooling: job.input.pooling,
              normalize: job.input.normalize,
              clsOnly,
            }),
          );
          const t = (rows: number[][]) =>
            new ort.Tensor(
              'int64',
              BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
              [b, s],
            );
          const feeds: Record<string, ort.Tensor> = {
            input_ids: t(r.input_ids),
            attention_mask: t(r.attention_mask),
          };
          if (session.inputNames.includes('token_type_ids'))
            feeds.token_type_ids = t(r.token_type_ids ?? r.input_ids.map((row) => row.map(() => 0)));
          const ours = (await session.run(feeds)).sentence_embedding!.data as Float32Array;
          await session.release();
          const h = ours.length / b;
          let minCosine = 1;
          let maxAbsDiff = 0;
          for (let k = 0; k < b; k++) {
            const mine = ours.subarray(k * h, (k + 1) * h);
            const theirs = r.embeddings[k]!;
            minCosine = Math.min(minCosine, cosine(mine, theirs));
            for (let j = 0; j < h; j++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(mine[j]! - theirs[j]!));
          }
          summary[label] = { minCosine, maxAbsDiff };
          expect(minCosine, label).toBeGreaterThanOrEqual(0.9999);
          expect(maxAbsDiff, label).toBeLessThan(1e-5);
        }
      }
      console.log(`sentence-transformers vs ONNX export: ${JSON.stringify(summary, null, 1)}`);
    },
    pythonTimeout,
  );
});

const loadScript = `
import json, sys, transformers
from safetensors.numpy import load_file
job = json.load(sys.stdin)
# AutoTokenizer would first load config.json, which needs the remote code; use the class
# tokenizer_config.json names, as AutoTokenizer itself resolves it.
cls = json.load(open(job["dir"] + "/tokenizer_config.json"))["tokenizer_class"]
tok = getattr(transformers, cls).from_pretrained(job["dir"], local_files_only=True)
enc = tok(job["texts"], padding=True)
w = load_file(job["dir"] + "/model.safetensors")
print(json.dumps({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "class": type(tok).__name__,
                  "weights": {k: [list(v.shape), float(abs(v).sum())] for k, v in w.items()}}))
`;

describe('gte NewModel export in Python without the remote code', () => {
  const gte = loadFixture('tiny-gte-multilingual-newmodel');
  const py = gte ? findPython(['transformers', 'safetensors', 'numpy']) : undefined;
  it.skipIf(!gte || !py)(
    'transformers loads its tokenizer (same ids) and its weights (same values)',
    async () => {
      const job = fixtureJob(gte!, 'cls', true);
      const dir = tmp();
      await exportHuggingFace(dir, job.input);
      const r = runPython(py!, loadScript, { dir, texts: job.texts }) as {
        input_ids: number[][];
        attention_mask: number[][];
        class: string;
        weights: Record<string, [number[], number]>;
      };
      expect(r.input_ids.map((row, k) => row.filter((_, t) => r.attention_mask[k]![t]))).toEqual(
        job.expectedIds,
      );
      expect(Object.keys(r.weights).sort()).toEqual([...gte!.weights.keys()].sort());
      for (const [name, w] of gte!.weights) {
        const [shape, l1] = r.weights[name]!;
        expect(shape).toEqual(w.shape);
        expect(l1).toBeCloseTo(
          w.data.reduce((a, v) => a + Math.abs(v), 0),
          2,
        );
      }
    },
    pythonTimeout,
  );
});
