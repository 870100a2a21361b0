// A trained model's export loads in Python `SentenceTransformer(dir)` with CLS pooling and
// Normalize, and gives the embeddings of our ONNX export and our tfjs encoder (cosine >= 0.9999).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { TransformerEncoder, toForwardInputs } from '../encoders/transformer-encoder.js';
import { findPython, pythonTimeout, runPython } from '../export/test-utils/python.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { makeTinyWorld } from './test-utils/tiny-world.js';
import { trainRetriever } from './train-retriever.js';

const python = findPython(['torch', 'transformers', 'sentence_transformers']);

const script = `
import json, sys, torch
torch.set_num_threads(1)
from sentence_transformers import SentenceTransformer
job = json.load(sys.stdin)
m = SentenceTransformer(job["dir"], device="cpu", local_files_only=True)
m.eval()
f = m.tokenize(job["texts"])
with torch.no_grad():
    emb = m.encode(job["texts"], batch_size=len(job["texts"]), convert_to_numpy=True)
print(json.dumps({"embeddings": emb.tolist(), "modules": [type(x).__name__ for x in m],
  "pooling": m[1].get_config_dict(), **{k: f[k].tolist() for k in ("input_ids", "attention_mask", "token_type_ids")}}))
`;

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

describe('trained export in sentence-transformers (Python reference stack)', () => {
  it.skipIf(!python)(
    'SentenceTransformer(dir) = our ONNX = our tfjs embeddings (cosine >= 0.9999), CLS + Normalize',
    async () => {
      await initBackend();
      const dir = mkdtempSync(join(tmpdir(), 'dv-trained-export-'));
      const world = await makeTinyWorld(join(dir, 'world'), { layers: 2, dropout: 0.1 });
      const run = await trainRetriever({
        config: {
          optimizer: { lr: 3e-3 },
          model: { maxQueryLength: 32, maxDocLength: 32 },
          batch: { batchSize: 8, hardNegatives: 2, steps: 15 },
        },
        data: world.mix,
        init: world.init,
        out: join(dir, 'run'),
      });
      const texts = [
        'lemma3 Only music senses.',
        'lemma3: a red music thing, deep and soft',
        'lemma11 Not plant senses.',
        'x',
      ];
      const r = runPython(python!, script, { dir: run.exportDir, texts }) as {
        embeddings: number[][];
        modules: string[];
        pooling: { pooling_mode?: string; pooling_mode_cls_token?: boolean };
        input_ids: number[][];
        attention_mask: number[][];
        token_type_ids: number[][];
      };
      expect(r.modules).toEqual(['Transformer', 'Pooling', 'Normalize']);
      // sentence-transformers >= 6 says pooling_mode; older versions the boolean flags.
      expect(r.pooling.pooling_mode ?? (r.pooling.pooling_mode_cls_token ? 'cls' : 'other')).toBe('cls');

      // ONNX on the exact token ids sentence-transformers used.
      const [b, s] = [r.input_ids.length, r.input_ids[0]!.length];
      const t = (rows: number[][]) =>
        new ort.Tensor(
          'int64',
          BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
          [b, s],
        );
      const session = await ort.InferenceSession.create(
        readFileSync(join(run.exportDir, 'onnx', 'model.onnx')),
      );
      const onnx = (
        await session.run({
          input_ids: t(r.input_ids),
          attention_mask: t(r.attention_mask),
          token_type_ids: t(r.token_type_ids),
        })
      ).sentence_embedding!.data as Float32Array;
      await session.release();

      // tfjs: our encoder and tokenizer from the same folder.
      const encoder = TransformerEncoder.fromPretrained(run.exportDir);
      const tok = HfTokenizer.fromFile(join(run.exportDir, 'tokenizer.json'));
      const enc = await tok.encode(texts, { maxLength: 32 });
      expect(enc.inputIds.map((row, k) => row.filter((_, j) => enc.attentionMask[k]![j]))).toEqual(
        r.input_ids.map((row, k) => row.filter((_, j) => r.attention_mask[k]![j])),
      );
      const tfjs = encoder.embed(toForwardInputs(enc), 'cls', true).dataSync() as Float32Array;
      encoder.dispose();

      const h = onnx.length / b;
      let worst = 1;
      for (let k = 0; k < b; k++) {
        const py = r.embeddings[k]!;
        worst = Math.min(
          worst,
          cosine(py, onnx.subarray(k * h, (k + 1) * h)),
          cosine(py, tfjs.subarray(k * h, (k + 1) * h)),
        );
        expect(Math.hypot(...py)).toBeCloseTo(1, 5); // Normalize applied
      }
      console.log(`trained export: min cosine sentence-transformers vs ONNX / tfjs = ${worst}`);
      expect(worst).toBeGreaterThanOrEqual(0.9999);
    },
    pythonTimeout,
  );
});
