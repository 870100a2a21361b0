import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { TransformerEncoder } from '../encoders/transformer-encoder.js';
import type { TrainEvent } from '../loop/train-events.js';
import { readSafetensors } from '../safetensors/index.js';
import { pretrainMlm } from './pretrain-mlm.js';

describe('pretrainMlm', () => {
  // issue 25: random bytes given as a corpus were trained on (decoded with U+FFFD)
  it('a binary corpus is a DataError naming file:line, before any training', async () => {
    await initBackend();
    const dir = mkdtempSync(join(tmpdir(), 'dv-mlm-bin-'));
    const config = {
      layers: 1,
      hidden: 64,
      vocabSize: 60,
      maxLength: 16,
      batchSize: 16,
      steps: 2,
      optimizer: { lr: 1e-3 },
    };
    // deterministic "random" bytes: an LCG; the first line holds invalid UTF-8
    let x = 12345;
    const random = join(dir, 'random.bin');
    writeFileSync(
      random,
      Uint8Array.from({ length: 4096 }, () => {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        return x >> 23;
      }),
    );
    await expect(pretrainMlm({ config, corpus: random, out: join(dir, 'a') })).rejects.toThrow(
      new RegExp(`^${random.replaceAll('.', '\\.')}:\\d+: invalid UTF-8 \\(byte 0x[0-9a-f]{2}`),
    );
    // valid UTF-8 but binary (NUL bytes)
    const nul = join(dir, 'nul.txt');
    writeFileSync(nul, Buffer.from('a plain line\nab\u0000\u0001cd\n'));
    await expect(pretrainMlm({ config, corpus: nul, out: join(dir, 'b') })).rejects.toThrow(
      `${nul}:2: binary data (byte 0x00): an MLM corpus is text`,
    );
    expect(existsSync(join(dir, 'b', 'summary.json'))).toBe(false);
  });

  it('lowers the MLM loss, exports an HF folder, and is cached by its config digest', async () => {
    await initBackend();
    const dir = mkdtempSync(join(tmpdir(), 'dv-mlm-'));
    const corpus = join(dir, 'corpus.jsonl');
    const animals = ['cat', 'dog', 'fish', 'bird', 'horse', 'mouse'];
    const rows = Array.from({ length: 300 }, (_, i) => {
      const a = animals[i % animals.length]!;
      return JSON.stringify({
        docid: `d${i}`,
        title: a,
        text: `the ${a} is an animal and the ${a} eats food`,
      });
    });
    writeFileSync(corpus, `${rows.join('\n')}\n`);
    const config = {
      layers: 1,
      hidden: 64,
      vocabSize: 60,
      maxLength: 16,
      batchSize: 16,
      steps: 60,
      logEverySteps: 10,
      optimizer: { lr: 3e-3, gradClipNorm: 1 },
    };
    const out = join(dir, 'run');
    const r = await pretrainMlm({ config, corpus, out });
    expect(r.cached).toBe(false);
    const curve = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).loss as number);
    expect(curve).toHaveLength(6);
    expect(curve.at(-1)!).toBeLessThan(curve[0]! - 0.5);
    for (const f of [
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'modules.json',
      '1_Pooling/config.json',
    ])
      expect(existsSync(join(r.exportDir, f)), f).toBe(true);
    expect(existsSync(join(out, 'mlm_head.safetensors'))).toBe(true);
    const enc = TransformerEncoder.fromPretrained(r.exportDir);
    expect(enc.config.num_hidden_layers).toBe(1);
    enc.dispose();

    const again = await pretrainMlm({ config, corpus, out });
    expect(again).toMatchObject({ cached: true, finalLoss: r.finalLoss, digest: r.digest });
    await expect(pretrainMlm({ config: { ...config, steps: 61 }, corpus, out })).rejects.toThrow(
      /MLM run made by other code, config or corpus \(config steps: 60 -> 61\)/,
    );
  }, 120_000);

  it('an aborted run checkpoints and resumes onto the uninterrupted loss curve (1e-4), even past a corrupt newest checkpoint', async () => {
    await initBackend();
    const dir = mkdtempSync(join(tmpdir(), 'dv-mlm-resume-'));
    const corpus = join(dir, 'corpus.txt');
    const words = ['red', 'green', 'blue', 'cat', 'dog', 'sea', 'sky', 'tree'];
    writeFileSync(
      corpus,
      Array.from(
        { length: 120 },
        (_, i) => `the ${words[i % 8]} and the ${words[(i * 3) % 8]} number ${i % 7}`,
      ).join('\n'),
    );
    const config = {
      layers: 1,
      hidden: 64,
      vocabSize: 60,
      maxLength: 12,
      batchSize: 8,
      steps: 24,
      logEverySteps: 1,
      checkpoint: { everySteps: 5, keepLast: 2 },
      optimizer: { lr: 3e-3, gradClipNorm: 1 },
    };
    const full = await pretrainMlm({ config, corpus, out: join(dir, 'full') });
    const curve = mlmLosses(join(dir, 'full'));
    expect(curve).toHaveLength(24);
    expect(new Set(curve.map((l) => l.toFixed(4))).size).toBeGreaterThan(10);

    const out = join(dir, 'cut');
    const controller = new AbortController();
    await expect(
      pretrainMlm({
        config,
        corpus,
        out,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'step' && e.step === 13) controller.abort(new Error('stop here'));
        },
      }),
    ).rejects.toThrow('stop here');
    // every 5 steps, and on abort; the newest two kept
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-000010', 'step-000013']);
    const first = await pretrainMlm({
      config,
      corpus,
      out,
      signal: controller.signal,
    }).catch((e: Error) => e.message);
    expect(first).toBe('stop here'); // still aborted: stops before training, checkpoint unchanged
    expect(mlmLosses(out)).toEqual(curve.slice(0, 13));

    const resumed = await pretrainMlm({ config, corpus, out });
    expect(resumed.resumedFrom).toBe(13);
    const again = mlmLosses(out);
    expect(again).toHaveLength(24);
    const diff = Math.max(...again.map((l, i) => Math.abs(l - curve[i]!)));
    expect(diff).toBeLessThan(1e-4);
    expect(Math.abs(resumed.finalLoss - full.finalLoss)).toBeLessThan(1e-4);
    const w = (p: string) => readSafetensors(join(p, 'export', 'model.safetensors')).tensors;
    const [a, b] = [w(join(dir, 'full')), w(out)];
    for (const [name, t] of a) {
      const u = b.get(name)!.data as Float32Array;
      const maxDiff = (t.data as Float32Array).reduce((m, x, i) => Math.max(m, Math.abs(x - u[i]!)), 0);
      expect(maxDiff, name).toBeLessThan(1e-4);
    }

    // A truncated newest checkpoint: the resume says so and starts from the one before.
    const cut2 = join(dir, 'cut2');
    const c2 = new AbortController();
    await pretrainMlm({
      config,
      corpus,
      out: cut2,
      signal: c2.signal,
      onEvent: (e) => {
        if (e.type === 'step' && e.step === 17) c2.abort(new Error('stop'));
      },
    }).catch(() => {});
    const weights = join(cut2, 'checkpoints', 'step-000017', 'model.safetensors');
    truncateSync(weights, statSync(weights).size - 1000);
    const events: TrainEvent[] = [];
    const r2 = await pretrainMlm({ config, corpus, out: cut2, onEvent: (e) => events.push(e) });
    expect(r2.resumedFrom).toBe(15);
    const note = events.find((e) => e.type === 'note');
    expect(note && 'message' in note ? note.message : '').toContain(
      `checkpoint ${join(cut2, 'checkpoints', 'step-000017')} is corrupt`,
    );
    const curve2 = mlmLosses(cut2);
    expect(curve2).toHaveLength(24);
    for (const [i, l] of curve2.entries())
      expect(Math.abs(l - curve[i]!), `step ${i + 1}`).toBeLessThan(1e-4);
  }, 180_000);
});

function mlmLosses(out: string): number[] {
  return readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).loss as number);
}
