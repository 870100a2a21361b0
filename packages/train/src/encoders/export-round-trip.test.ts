import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { buildOnnxModel, encodeOnnx, exportHuggingFace } from '../export/index.js';
import { trainWordPiece } from '../tokenizer/train-word-piece.js';
import { createMiniEncoder } from './mini-backbones.js';
import { TransformerEncoder, toForwardInputs } from './transformer-encoder.js';

// The hand-over between the tfjs encoders and the exporters: a mini backbone's weights, exported
// to ONNX and to a Hugging Face folder, must give the embeddings tfjs gives.
describe('mini backbones through the exporters', async () => {
  await initBackend();
  const corpus = Array.from(
    { length: 100 },
    (_, i) => `a ${['fish', 'voice', 'guitar'][i % 3]} called bass ${i % 7}`,
  );
  const tokenizer = await trainWordPiece(corpus, { vocabSize: 60 });
  const texts = ['a fish called bass', 'guitar', 'a deep voice called bass 3'];
  const batch = await tokenizer.encode(texts);

  for (const name of ['mini-bert', 'mini-gte'] as const) {
    it(`${name}: onnxruntime-node within 1e-5 of tfjs; HF folder reloads exactly`, async () => {
      const enc = createMiniEncoder(name, { vocabSize: tokenizer.vocabSize, seed: 11 });
      const mine = tf.tidy(() => enc.embed(toForwardInputs(batch), 'mean', true).dataSync());

      const session = await ort.InferenceSession.create(
        encodeOnnx({ config: enc.config, weights: enc.toWeights(), pooling: 'mean', normalize: true }),
      );
      const dims = [batch.inputIds.length, batch.inputIds[0]!.length];
      const int64 = (rows: number[][]) =>
        new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), dims);
      const feeds: Record<string, ort.Tensor> = {
        input_ids: int64(batch.inputIds),
        attention_mask: int64(batch.attentionMask),
      };
      if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = int64(batch.tokenTypeIds);
      const onnx = (await session.run(feeds)).sentence_embedding!.data as Float32Array;
      let diff = 0;
      for (let i = 0; i < mine.length; i++) diff = Math.max(diff, Math.abs(onnx[i]! - mine[i]!));
      expect(diff).toBeLessThanOrEqual(1e-5);

      const dir = mkdtempSync(join(tmpdir(), `dv-${name}-`));
      const tokPath = join(dir, 'tokenizer.source.json');
      writeFileSync(tokPath, tokenizer.json);
      await exportHuggingFace(join(dir, 'hf'), {
        config: enc.config,
        weights: enc.toWeights(),
        tokenizerJson: tokPath,
        pooling: 'mean',
        normalize: true,
      });
      const back = TransformerEncoder.fromPretrained(join(dir, 'hf'));
      expect(tf.tidy(() => back.embed(toForwardInputs(batch), 'mean', true).dataSync())).toEqual(mine);
      back.dispose();
      enc.dispose();
    });

    // Each graph form: standard ops, the default fused contrib ops (Attention or
    // MultiHeadAttention, BiasGelu / Gelu / FastGelu) and every fusion (also
    // SkipLayerNormalization), for each activation, on a padded batch.
    it(`${name}: each ONNX graph form and activation within 1e-5 of tfjs`, async () => {
      const forms = {
        standard: false,
        default: true,
        all: { attention: true, skipLayerNorm: true, gelu: true },
      };
      const attention = name === 'mini-bert' ? 'Attention' : 'MultiHeadAttention';
      for (const act of ['gelu', 'gelu_new', 'relu'] as const) {
        const enc = createMiniEncoder(name, {
          vocabSize: tokenizer.vocabSize,
          seed: 5,
          overrides: { hidden_act: act },
        });
        const mine = tf.tidy(() => enc.embed(toForwardInputs(batch), 'cls', true).dataSync());
        for (const [form, fusedOps] of Object.entries(forms)) {
          const input = {
            config: enc.config,
            weights: enc.toWeights(),
            pooling: 'cls' as const,
            normalize: true,
            fusedOps,
          };
          const ops = new Set(buildOnnxModel(input).graph.nodes.map((n) => `${n.domain ?? ''}:${n.opType}`));
          const gelu =
            act === 'relu'
              ? 'Relu'
              : name === 'mini-bert'
                ? act === 'gelu'
                  ? 'BiasGelu'
                  : 'FastGelu'
                : act === 'gelu'
                  ? 'Gelu'
                  : 'FastGelu';
          const contrib = (op: string) => ops.has(`com.microsoft:${op}`);
          expect(contrib(attention), `${form} ${act}`).toBe(form !== 'standard');
          expect(contrib('SkipLayerNormalization'), `${form} ${act}`).toBe(form === 'all');
          if (act !== 'relu') expect(contrib(gelu), `${form} ${act}`).toBe(form !== 'standard');
          expect(ops.has(':Softmax'), `${form} ${act}`).toBe(form === 'standard');
          const session = await ort.InferenceSession.create(encodeOnnx(input));
          const dims = [batch.inputIds.length, batch.inputIds[0]!.length];
          const int64 = (rows: number[][]) =>
            new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), dims);
          const feeds: Record<string, ort.Tensor> = {
            input_ids: int64(batch.inputIds),
            attention_mask: int64(batch.attentionMask),
          };
          if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = int64(batch.tokenTypeIds);
          const onnx = (await session.run(feeds)).sentence_embedding!.data as Float32Array;
          let diff = 0;
          for (let i = 0; i < mine.length; i++) diff = Math.max(diff, Math.abs(onnx[i]! - mine[i]!));
          expect(diff, `${name} ${form} ${act}`).toBeLessThanOrEqual(1e-5);
          await session.release();
        }
        enc.dispose();
      }
    });
  }
});
