import { existsSync, mkdtempSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFormatter, createRng, type TrainerConfig } from '@dv/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { TransformerEncoder, toForwardInputs } from '../encoders/transformer-encoder.js';
import { infoNceLoss } from '../losses/info-nce.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { buildBatch } from './build-batch.js';
import { contrastiveGradients } from './contrastive-gradients.js';
import { makeTinyWorld } from './test-utils/tiny-world.js';
import type { TrainEvent } from './train-events.js';
import { trainRetriever } from './train-retriever.js';
import { TrainingDivergedError } from './training-diverged-error.js';

/** A trainer config as written (defaults not applied). */
type TrainerConfigInput = z.input<typeof TrainerConfig>;

await initBackend();
const root = mkdtempSync(join(tmpdir(), 'dv-trainer-'));
const world = await makeTinyWorld(join(root, 'world'));

const base = (over: Partial<TrainerConfigInput> = {}): TrainerConfigInput => ({
  seed: 5,
  optimizer: { lr: 2e-3, gradClipNorm: 1 },
  model: { maxQueryLength: 16, maxDocLength: 24, dropout: 0.1 },
  batch: { batchSize: 8, hardNegatives: 2, steps: 10, shuffleBuffer: 8 },
  checkpoint: { everySteps: 4, keepLast: 2 },
  logEverySteps: 1,
  ...over,
});

function losses(out: string): number[] {
  return readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => 'loss' in r)
    .map((r) => r.loss);
}

describe('trainer loss and gradients', () => {
  it('the loss of a built dual-view batch equals the hand-computed value', () => {
    const [o, c] = world.examples as [(typeof world.examples)[0], (typeof world.examples)[0]];
    const b = buildBatch([o, c], {
      hardNegatives: 1,
      inBatchNegatives: true,
      maskFalseNegatives: true,
      formatter: createFormatter(),
    });
    // Docs: sense A (o's positive, c's first negative), sense B (c's positive, o's first negative).
    expect(b.docIds).toEqual([o.positives[0]!.docid, c.positives[0]!.docid]);
    expect(b.relations).toEqual([
      [1, -1],
      [-1, 1],
    ]);
    const q = tf.tensor2d([
      [1, 0],
      [0.28, 0.96],
    ]);
    const d = tf.tensor2d([
      [0.8, 0.6],
      [0.6, 0.8],
    ]);
    // By hand, tau = 0.5: row o: s = (1.6, 1.2), log(1 + e^-0.4) = 0.5130153;
    // row c: s = (1.6, 1.872), log(1 + e^(1.6 - 1.872)) = 0.5663668; mean 0.5396910.
    const loss = infoNceLoss(q, d, tf.tensor2d(b.relations), { temperature: 0.5 }).dataSync()[0]!;
    expect(loss).toBeCloseTo(0.539691, 5);
  });

  it('gradient-cache gradients equal plain ones (1e-5)', async () => {
    const encoder = TransformerEncoder.fromPretrained(world.init);
    const tok = HfTokenizer.fromFile(join(world.init, 'tokenizer.json'));
    const f = createFormatter();
    const b = buildBatch(world.examples.slice(0, 6), {
      hardNegatives: 2,
      inBatchNegatives: true,
      maskFalseNegatives: true,
      formatter: f,
    });
    const inputs = {
      queries: toForwardInputs(await tok.encode(b.queryTexts, { maxLength: 16 })),
      docs: toForwardInputs(await tok.encode(b.docTexts, { maxLength: 24 })),
      relations: tf.tensor2d(b.relations),
    };
    const opts = { pooling: 'cls' as const, normalize: true, temperature: 0.02, training: false };
    const plain = contrastiveGradients(encoder, inputs, opts, createRng(1));
    const compare = (chunk: number) => {
      const cached = contrastiveGradients(encoder, inputs, { ...opts, gradCacheChunk: chunk }, createRng(1));
      expect(cached.loss).toBeCloseTo(plain.loss, 6);
      expect([...cached.grads.keys()].sort()).toEqual([...plain.grads.keys()].sort());
      let worst = 0;
      let largest = 0;
      for (const [n, g] of plain.grads) {
        const a = g.dataSync();
        const c = cached.grads.get(n)!.dataSync();
        for (let i = 0; i < a.length; i++) {
          worst = Math.max(worst, Math.abs(a[i]! - c[i]!));
          largest = Math.max(largest, Math.abs(a[i]!));
        }
      }
      tf.dispose([...cached.grads.values()]);
      return { worst, largest };
    };
    // One chunk holding the whole batch: the same arithmetic, bit for bit.
    expect(compare(1000).worst).toBe(0);
    // Chunks of 4 rows: the encoder's kernels round differently at another batch size, so
    // the embeddings differ in the last float32 bits; every gradient entry within 1e-5.
    const { worst, largest } = compare(4);
    expect(largest).toBeGreaterThan(1e-4); // the gradients are not trivially zero
    expect(worst).toBeLessThan(1e-5);
    encoder.dispose();
  });
});

describe('trainRetriever', () => {
  it('same seed -> same loss curve; an aborted run resumes onto the uninterrupted curve', async () => {
    const a = await trainRetriever({
      config: base(),
      data: world.mix,
      init: world.init,
      out: join(root, 'a'),
    });
    const curve = losses(a.out);
    expect(curve).toHaveLength(10);
    expect(a.steps).toBe(10);
    const b = await trainRetriever({
      config: base(),
      data: world.mix,
      init: world.init,
      out: join(root, 'b'),
    });
    expect(losses(b.out)).toEqual(curve);

    const controller = new AbortController();
    const out = join(root, 'c');
    await expect(
      trainRetriever({
        config: base(),
        data: world.mix,
        init: world.init,
        out,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'step' && e.step === 6) controller.abort(new Error('stop here'));
        },
      }),
    ).rejects.toThrow('stop here');
    expect(existsSync(join(out, 'checkpoints', 'step-000006'))).toBe(true);
    const resumed = await trainRetriever({ config: base(), data: world.mix, init: world.init, out });
    expect(resumed.resumed).toBe(true);
    const again = losses(out);
    expect(again).toHaveLength(10);
    for (const [i, l] of again.entries()) expect(Math.abs(l - curve[i]!)).toBeLessThan(1e-4);
    // The curve moves (a real run, not a constant).
    expect(new Set(curve.map((l) => l.toFixed(4))).size).toBeGreaterThan(5);

    const done = await trainRetriever({ config: base(), data: world.mix, init: world.init, out });
    expect(done.alreadyComplete).toBe(true);
    await expect(
      trainRetriever({ config: base({ seed: 6 }), data: world.mix, init: world.init, out }),
    ).rejects.toThrow(/different config/);
    for (const f of [
      'manifest.json',
      'summary.json',
      'export/model.safetensors',
      'export/onnx/model.onnx',
      'export/modules.json',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
  }, 120_000);

  it('a truncated newest checkpoint: the resume says so and continues from the previous one on the same curve', async () => {
    const ref = await trainRetriever({
      config: base(),
      data: world.mix,
      init: world.init,
      out: join(root, 'ref'),
    });
    const curve = losses(ref.out);
    const controller = new AbortController();
    const out = join(root, 'corrupt');
    await expect(
      trainRetriever({
        config: base(),
        data: world.mix,
        init: world.init,
        out,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'step' && e.step === 7) controller.abort(new Error('stop here'));
        },
      }),
    ).rejects.toThrow('stop here');
    const newest = join(out, 'checkpoints', 'step-000007');
    const weights = join(newest, 'model.safetensors');
    truncateSync(weights, statSync(weights).size - 4096);
    const events: TrainEvent[] = [];
    const resumed = await trainRetriever({
      config: base(),
      data: world.mix,
      init: world.init,
      out,
      onEvent: (e) => events.push(e),
    });
    expect(resumed.resumed).toBe(true);
    const note = events.find((e) => e.type === 'note');
    expect(note && 'message' in note ? note.message : '').toMatch(
      new RegExp(`checkpoint ${newest} is corrupt \\(.*model\\.safetensors does not match`),
    );
    expect(events.find((e) => e.type === 'start')).toMatchObject({ startStep: 4, resumed: true });
    const again = losses(out);
    expect(again).toHaveLength(10);
    for (const [i, l] of again.entries()) expect(Math.abs(l - curve[i]!), `step ${i + 1}`).toBeLessThan(1e-4);
  }, 120_000);

  it('gradient accumulation and the gradient cache train too; NaN stops naming the step, checkpoint kept', async () => {
    const acc = await trainRetriever({
      config: base({
        batch: { batchSize: 4, hardNegatives: 2, steps: 3, gradAccumulation: 2, gradCacheChunk: 3 },
      }),
      data: world.mix,
      init: world.init,
      out: join(root, 'acc'),
    });
    expect(losses(acc.out).every(Number.isFinite)).toBe(true);

    const out = join(root, 'nan');
    const err = await trainRetriever({
      config: base({
        optimizer: { lr: 1e38 },
        schedule: { name: 'constant', warmupRatio: 0 },
        checkpoint: { everySteps: 1, keepLast: 5 },
      }),
      data: world.mix,
      init: world.init,
      out,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(TrainingDivergedError);
    const e = err as TrainingDivergedError;
    expect(e.step).toBeGreaterThan(1);
    expect(e.message).toMatch(
      new RegExp(`diverged at step ${e.step}: (loss|gradient norm) is (NaN|-?Infinity)`),
    );
    const last = join(out, 'checkpoints', `step-${String(e.step - 1).padStart(6, '0')}`);
    expect(e.lastCheckpoint).toBe(last);
    expect(existsSync(join(last, 'trainer_state.json'))).toBe(true);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  }, 120_000);
});
