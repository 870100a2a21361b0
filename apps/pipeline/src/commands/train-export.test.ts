import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng, TrainerConfig } from '@dv/core';
import { TfjsEncoder } from '@dv/eval';
import {
  createMiniEncoder,
  expectedEngineValue,
  initBackend,
  saveCheckpoint,
  TRAINER_FIELD_MAP,
  trainWordPiece,
} from '@dv/train';
import { beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli.ts');
const repoRoot = resolve(here, '..', '..', '..', '..');
const venv = join(repoRoot, '.venv-ref', 'bin');
const exec = promisify(execFile);

async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', cli, ...args],
      {
        cwd: join(here, '..', '..'),
        env: { ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'silent' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A small mini-world-like mix: lemmas with two senses, both views of each pair. */
function writeMix(dir: string): { mix: string; texts: string[]; set: string } {
  const rng = createRng(11);
  const cats = ['animal', 'music', 'food', 'tool', 'plant', 'place'];
  const adj = ['red', 'old', 'small', 'loud', 'deep', 'soft', 'fast', 'round'];
  const lines: string[] = [];
  const texts: string[] = [];
  const corpus: Array<{ docid: string; title: string; text: string }> = [];
  const queries: Array<{ id: string; query: string; instructions: { og: string } }> = [];
  const qrels: Record<string, Record<string, number>> = {};
  for (let l = 0; l < 20; l++) {
    const lemma = `lemma${l}`;
    const [a, b] = rng.sample(cats, 2) as [string, string];
    const sense = (c: string, s: string) => ({
      docid: `${lemma}.${s}`,
      title: lemma,
      text: `a ${rng.choice(adj)} ${c} thing, ${rng.choice(adj)}`,
    });
    const A = sense(a, 'a');
    const B = sense(b, 'b');
    lines.push(
      JSON.stringify({
        id: `${lemma}-o`,
        query: lemma,
        instruction: `Only ${a} senses.`,
        positives: [A],
        negatives: [B],
        view: 'original',
        pairId: lemma,
      }),
      JSON.stringify({
        id: `${lemma}-c`,
        query: lemma,
        instruction: `Not ${a} senses.`,
        positives: [B],
        negatives: [A],
        view: 'complement',
        pairId: lemma,
      }),
    );
    texts.push(`${lemma} ${A.text}`, `${lemma} ${B.text}`, `only not ${a} ${b} senses`);
    corpus.push(A, B);
    queries.push({ id: lemma, query: lemma, instructions: { og: `Only ${a} senses.` } });
    qrels[lemma] = { [A.docid]: 1 };
  }
  const mix = join(dir, 'mix.jsonl');
  writeFileSync(mix, `${lines.join('\n')}\n`);
  const set = join(dir, 'set.json');
  writeFileSync(set, JSON.stringify({ name: 'lemmas', corpus, queries, qrels: { og: qrels } }));
  return { mix, texts, set };
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; log: string }> {
  return new Promise((res) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env } });
    let log = '';
    p.stdout.on('data', (b) => (log += b));
    p.stderr.on('data', (b) => (log += b));
    p.on('close', (code) => res({ code: code ?? 1, log }));
  });
}

describe('dv train export --engine sentence-transformers, trained for real under torchrun', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-train-export-'));
  let world: ReturnType<typeof writeMix>;
  const init = join(dir, 'init');

  beforeAll(async () => {
    world = writeMix(dir);
    await initBackend();
    const tok = await trainWordPiece(world.texts, { vocabSize: 120 });
    const encoder = createMiniEncoder('mini-bert', {
      vocabSize: tok.vocabSize,
      seed: 5,
      overrides: {
        num_hidden_layers: 1,
        hidden_size: 64,
        num_attention_heads: 1,
        intermediate_size: 128,
        pad_token_id: tok.padId,
        max_position_embeddings: 64,
        hidden_dropout_prob: 0,
      },
    });
    await saveCheckpoint(init, { encoder, step: 0, rng: createRng(0) });
    writeFileSync(join(init, 'tokenizer.json'), tok.json);
    encoder.dispose();
  }, 60_000);

  it('bad usage exits 2: unknown engine, a batch that does not split over the processes', async () => {
    const base = ['train', 'export', '--mix', world.mix, '--init', init, '--out', join(dir, 'bad')];
    expect((await dv([...base, '--engine', 'deepspeed'])).code).toBe(2);
    const r = await dv([...base, '--nproc', '3', '--batch', '8']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not split over 3 processes/);
  });

  it('two gloo processes train a few dozen steps: the loss falls, settings equal the trainer config, dv eval loads the result', async (ctx) => {
    const out = join(dir, 'st');
    const e = await dv([
      'train',
      'export',
      '--engine',
      'sentence-transformers',
      '--mix',
      world.mix,
      '--init',
      init,
      '--out',
      out,
      '--nproc',
      '2',
      '--batch',
      '8',
      '--steps',
      '30',
      '--lr',
      '0.001',
      '--hard-negatives',
      '1',
    ]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/40 rows \(20 dual-view pairs\)/);
    expect(readFileSync(join(out, 'launch.sh'), 'utf8')).toContain(
      'torchrun --nproc_per_node 2 dv_st_train.py --settings settings.json',
    );
    if (!existsSync(join(venv, 'torchrun'))) {
      console.warn(
        'skipping the torchrun run: no .venv-ref (pnpm setup:reference installs torch, sentence-transformers, accelerate, datasets)',
      );
      return ctx.skip();
    }
    // The launch file as a user runs it, with the reference venv first on PATH; CPU, gloo.
    const t = await run('bash', ['launch.sh'], out, {
      PATH: `${venv}:${process.env.PATH}`,
      OMP_NUM_THREADS: '1',
      HF_HUB_OFFLINE: '1',
      TOKENIZERS_PARALLELISM: 'false',
      CUDA_VISIBLE_DEVICES: '',
    });
    expect(t.code, t.log.slice(-3000)).toBe(0);
    const losses = readFileSync(join(out, 'output', 'train-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((x) => typeof x.loss === 'number' || typeof x.loss === 'string')
      .map((x) => Number(x.loss));
    expect(losses.length).toBeGreaterThanOrEqual(5);
    expect(losses.at(-1)!).toBeLessThan(0.8 * losses[0]!);

    // Field by field: what the sentence-transformers objects were given = our trainer config.
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const config = TrainerConfig.parse(manifest.config.trainer);
    const engine = JSON.parse(readFileSync(join(out, 'output', 'engine-settings.json'), 'utf8'));
    expect(engine.world_size).toBe(2);
    expect(engine.scale).toBe(1 / config.loss.temperature);
    expect(engine.scale).toBe(50);
    expect(engine.gather_across_devices).toBe(true);
    const derived = {
      perDeviceBatch: engine.per_device_train_batch_size,
      negatives: config.batch.hardNegatives,
    };
    for (const [field, m] of Object.entries(TRAINER_FIELD_MAP)) {
      if (m.engine === null) continue;
      let got: unknown = engine;
      for (const k of m.engine.split('.')) got = (got as Record<string, unknown>)[k];
      const want = expectedEngineValue(field as keyof typeof TRAINER_FIELD_MAP, config, derived);
      if (typeof want === 'number') expect(got, field).toBeCloseTo(want, 12);
      else expect(got, field).toEqual(want);
    }

    // The trained folder loads in dv eval through the tfjs encoder, and gives the vectors
    // sentence-transformers gave for the same texts.
    const final = join(out, 'output', 'final');
    const probe = JSON.parse(readFileSync(join(out, 'output', 'probe.json'), 'utf8')) as {
      texts: string[];
      embeddings: number[][];
    };
    const enc = await TfjsEncoder.fromDir(final);
    const mine = await enc.encodeQueries(probe.texts);
    probe.embeddings.forEach((row, i) => {
      row.forEach((v, j) => {
        expect(mine[i * enc.dim + j]).toBeCloseTo(v, 4);
      });
    });
    const ev = await dv([
      'eval',
      'run',
      '--benchmark',
      'mair',
      '--set',
      world.set,
      '--model',
      `tfjs:${final}`,
      '--out',
      join(dir, 'eval'),
      '--json',
    ]);
    expect(ev.code, ev.stderr).toBe(0);
    expect(JSON.parse(ev.stdout).datasets.lemmas).toHaveProperty('ndcg_cut_10');
  }, 240_000);
});
