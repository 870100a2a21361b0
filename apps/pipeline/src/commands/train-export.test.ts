import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng, TrainerConfig } from '@dv/core';
import { createMiniEncoder, initBackend, saveCheckpoint, TfjsEncoder, trainWordPiece } from '@dv/train';
import { expectedEngineValue, TRAINER_FIELD_MAP } from '@dv/train/testing';
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

/**
 * A real mix, built with the repo's own commands: a small mini world, offline synthesis, and the
 * All-DV mix (25 units: 15 dual-view pairs, 10 general single examples; units of 1, 2 and 4 rows,
 * as several senses satisfy some instructions). The shape is asserted where it is used.
 */
async function buildRealMix(dir: string): Promise<string> {
  const worldDir = join(dir, 'world');
  const steps = [
    ['data', 'build-mini', '--out', worldDir, '--seed', '3', '--train-lemmas', '80'],
    ['--test-lemmas', '20', '--dev-lemmas', '5', '--general-examples', '10'],
  ];
  const b = await dv([...steps[0]!, ...steps[1]!]);
  if (b.code !== 0) throw new Error(b.stderr);
  const s = await dv(['synth', '--seeds', join(worldDir, 'seeds.train.jsonl'), '--out', join(dir, 'synth')]);
  if (s.code !== 0) throw new Error(s.stderr);
  const m = await dv([
    'synth',
    'mix',
    '--from',
    join(dir, 'synth'),
    '--out',
    join(dir, 'mixes'),
    '--budget',
    '40',
    '--instruction-examples',
    '30',
    '--general',
    join(worldDir, 'general.train.jsonl'),
    '--mixes',
    'all-dv',
  ]);
  if (m.code !== 0) throw new Error(m.stderr);
  return join(dir, 'mixes', 'all-dv', 'train.jsonl');
}

const jsonl = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** The logged training losses of a run, step by step. */
const lossesOf = (output: string) =>
  jsonl(join(output, 'train-log.jsonl'))
    .filter((x) => typeof x.loss === 'number' || typeof x.loss === 'string')
    .map((x) => ({ step: x.step as number, loss: Number(x.loss) }));

describe('dv train export --engine sentence-transformers, trained for real under torchrun', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-train-export-'));
  let world: ReturnType<typeof writeMix>;
  let realMix: string;
  const init = join(dir, 'init');
  // No dropout and a loss logged every step: the 1- and 2-process runs are compared step by step.
  const exactConfig = join(dir, 'exact.json');
  const torchEnv = {
    PATH: `${venv}:${process.env.PATH}`,
    OMP_NUM_THREADS: '1',
    HF_HUB_OFFLINE: '1',
    TOKENIZERS_PARALLELISM: 'false',
    CUDA_VISIBLE_DEVICES: '',
  };

  beforeAll(async () => {
    world = writeMix(dir);
    realMix = await buildRealMix(dir);
    writeFileSync(exactConfig, JSON.stringify({ model: { dropout: 0 }, logEverySteps: 1 }));
    await initBackend();
    const mixTexts = jsonl(realMix).flatMap((e) => [
      `${e.query} ${e.instruction ?? ''}`,
      ...[...e.positives, ...e.negatives.slice(0, 2)].map(
        (p: { title: string; text: string }) => `${p.title} ${p.text}`,
      ),
    ]);
    const tok = await trainWordPiece([...world.texts, ...mixTexts], { vocabSize: 400 });
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
  }, 120_000);

  it('bad usage exits 2: unknown engine, a batch that does not split over the processes', async () => {
    const base = ['train', 'export', '--mix', world.mix, '--init', init, '--out', join(dir, 'bad')];
    expect((await dv([...base, '--engine', 'deepspeed'])).code).toBe(2);
    const r = await dv([...base, '--nproc', '3', '--batch', '8']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not split over 3 processes/);
  });

  // issue 22: units of a real mix (1, 2 and 4 rows here; up to 11 in bigger ones) reached the
  // launched job, which died at start-up or, worse, gathered uneven batches.
  it('a unit larger than the batch is a data error naming the unit and the batch, before anything is written', async () => {
    const out = join(dir, 'too-small');
    const r = await dv([
      ...['train', 'export', '--mix', realMix, '--init', init, '--out', out],
      ...['--nproc', '2', '--batch', '2'],
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(realMix);
    expect(r.stderr).toMatch(/unit '[^']+' has 4 rows .*more than the batch of 2 rows \(--batch/);
    // the output guard may have made the folder; nothing is in it
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  /** Exports the real mix for `nproc` processes with a global batch of `batch` rows, `steps` steps. */
  async function exportReal(out: string, batch: number, steps: number) {
    const e = await dv([
      ...['train', 'export', '--engine', 'sentence-transformers', '--mix', realMix, '--init', init],
      ...['--out', out, '--nproc', '2', '--batch', String(batch), '--steps', String(steps)],
      ...['--lr', '0.001', '--hard-negatives', '1', '--config', exactConfig],
    ]);
    expect(e.code, e.stderr).toBe(0);
    return e;
  }

  /**
   * The same export trained by 2 gloo processes (launch.sh) and by 1 process with the whole
   * global batch: the sampler packs the same global batches for both (padding included), so the
   * losses must agree step by step. What differs is float summation order (all_gather and DDP's
   * gradient all-reduce against one process's sums, GradCache chunks of other sizes, padding to
   * other lengths): measured 2e-7..3e-6 relative over the first 10 steps, growing to ~4e-4 by
   * step 30 as training amplifies it (grad norms rise from 0.003 to 10). Tolerances: 2e-5 for
   * steps 1-10, 3e-3 after. An uneven or garbage gather, padding counted as rows or a loss
   * scaled by the wrong number of rows moves step 1 by percents.
   */
  async function compareOneAndTwoProcesses(out: string) {
    const two = await run('bash', ['launch.sh'], out, torchEnv);
    expect(two.code, two.log.slice(-3000)).toBe(0);
    const one = await run(
      join(venv, 'torchrun'),
      ['--nproc_per_node', '1', 'dv_st_train.py', '--settings', 'settings.json', '--output-dir', 'output-1p'],
      out,
      torchEnv,
    );
    expect(one.code, one.log.slice(-3000)).toBe(0);
    const a = lossesOf(join(out, 'output'));
    const b = lossesOf(join(out, 'output-1p'));
    const settings = JSON.parse(readFileSync(join(out, 'settings.json'), 'utf8'));
    expect(a.map((x) => x.step)).toEqual(Array.from({ length: settings.batch.steps }, (_, i) => i + 1));
    expect(b.map((x) => x.step)).toEqual(a.map((x) => x.step));
    const rel = a.map((x, i) => Math.abs(x.loss - b[i]!.loss) / Math.abs(b[i]!.loss));
    console.log(
      `${out}: 1 vs 2 processes, ${a.length} steps, max relative loss difference ${Math.max(...rel).toExponential(2)}`,
    );
    for (const [i, r] of rel.entries())
      expect(r, `step ${i + 1}: ${a[i]!.loss} vs ${b[i]!.loss}`).toBeLessThan(i < 10 ? 2e-5 : 3e-3);
    // the packing the runs used: equal per-device slices, some padding (odd units)
    expect(two.log).toMatch(
      /dv_st_train: 25 units in \d+ global batches of \d+ rows \(2 x \d+\), [1-9]\d* padding rows/,
    );
    return a.map((x) => x.loss);
  }

  it('two gloo processes train a real mix to the end and match one process step by step; settings equal the trainer config, dv eval loads the result', async (ctx) => {
    const units = new Map<string, number>();
    for (const e of jsonl(realMix))
      units.set(e.pairId ?? e.id, (units.get(e.pairId ?? e.id) ?? 0) + e.positives.length);
    const sizes = [...units.values()];
    // what makes the mix "real": odd units (single general examples), pairs, multi-positive units
    expect(new Set(sizes)).toEqual(new Set([1, 2, 4]));
    const rows = sizes.reduce((x, y) => x + y, 0);
    const out = join(dir, 'st');
    const e = await exportReal(out, 8, 30);
    expect(e.stdout).toContain(`${rows} rows (15 dual-view pairs)`);
    expect(readFileSync(join(out, 'launch.sh'), 'utf8')).toContain(
      'torchrun --nproc_per_node 2 dv_st_train.py --settings settings.json',
    );
    if (!existsSync(join(venv, 'torchrun'))) {
      console.warn(
        'skipping the torchrun run: no .venv-ref (pnpm setup:reference installs torch, sentence-transformers, accelerate, datasets)',
      );
      return ctx.skip();
    }
    const losses = await compareOneAndTwoProcesses(out);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    expect(mean(losses.slice(-5))).toBeLessThan(0.8 * mean(losses.slice(0, 5)));

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
  }, 600_000);

  it('a global batch of 12 (6 rows a device; units span the two slices) also matches one process', async (ctx) => {
    const out = join(dir, 'st-12');
    await exportReal(out, 12, 8);
    if (!existsSync(join(venv, 'torchrun'))) return ctx.skip();
    await compareOneAndTwoProcesses(out);
  }, 600_000);
});
