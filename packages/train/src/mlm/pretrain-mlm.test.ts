import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { TransformerEncoder } from '../encoders/transformer-encoder.js';
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
      /MLM run of a different config/,
    );
  }, 120_000);
});
