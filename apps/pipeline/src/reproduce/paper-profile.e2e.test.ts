/**
 * The paper profile end to end on loopback stand-ins (test-utils/paper-stand-ins.ts): a Hub file
 * server on 127.0.0.1 serving a tiny Promptriever-layout seed set, tiny FollowIR / InfoSearch /
 * MAIR benchmark repos and a tiny random BERT-family backbone, and the loopback chat server as
 * the OpenAI-compatible endpoint. A scaled-down paper config (compute `cpu`) points at them:
 * the same stages and code as the real run, only the config differs.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { HUB_DATASETS } from '@dv/data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';
import { readStageRecord, stageDir } from './run-dag.js';
import { type PaperStandIns, startPaperStandIns } from './test-utils/paper-stand-ins.js';

const venvBin = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '.venv-ref', 'bin');

let s: PaperStandIns;
const dir = mkdtempSync(join(tmpdir(), 'dv-paper-e2e-'));
const out = join(dir, 'run');

async function reproduce(config: Record<string, unknown>, runDir: string) {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(config));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d) => {
    o += String(d);
  });
  stderr.on('data', (d) => {
    e += String(d);
  });
  const code = await runCommand(
    rootCommand,
    ['reproduce', '--profile', 'paper', '--config', path, '--out', runDir],
    { stdout, stderr },
  );
  return { code, stdout: o, stderr: e };
}

beforeAll(async () => {
  s = await startPaperStandIns();
}, 60_000);
afterAll(() => s?.close());

describe('pnpm reproduce --profile paper (loopback stand-ins)', () => {
  it('runs every stage, trains each mix, evaluates on the Hub benchmarks and writes the report', async () => {
    const r = await reproduce(s.config, out);
    expect(r.code, r.stderr).toBe(0);
    const b = s.backbones[0]!;
    const mixes = ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'];
    const ids = [
      'seeds',
      'synth',
      'mixes',
      `backbones/${b}`,
      ...mixes.map((m) => `train/${b}/${m}/seed-13`),
      'benchmarks',
      'eval/bm25',
      `eval/${b}/untrained`,
      ...mixes.map((m) => `eval/${b}/${m}/seed-13`),
      'report',
    ];
    for (const id of ids) expect(readStageRecord(stageDir(out, id)), id).not.toBeNull();

    // the seed data came from the Hub stand-in, the complements from the chat endpoint
    const seeds = readStageRecord(stageDir(out, 'seeds'))!;
    expect(seeds.summary).toMatchObject({
      repo: HUB_DATASETS.promptriever.repo,
      seedsTrain: 24,
      general: 24,
    });
    expect(s.hub.requests.some((p) => p.includes(HUB_DATASETS.promptriever.repo))).toBe(true);
    const synth = readStageRecord(stageDir(out, 'synth'))!.summary.train as {
      accepted: number;
      seeds: number;
    };
    expect(synth.seeds).toBe(24);
    expect(synth.accepted).toBeGreaterThan(8);
    expect(s.chat.requests).toBeGreaterThanOrEqual(24);
    const counts = readStageRecord(stageDir(out, 'mixes'))!.summary.counts as Record<
      string,
      Record<string, number>
    >;
    expect(counts['ins-dv']!.complement).toBeGreaterThan(0);
    expect(counts['all-orig']!.general).toBeGreaterThan(0);

    // each mix trained the Hub backbone with our trainer (steps, a loss curve, an HF export)
    const backbone = JSON.parse(readFileSync(join(stageDir(out, `backbones/${b}`), 'backbone.json'), 'utf8'));
    expect(backbone.commit).toBe(s.hub.commits.get(`model/stand-in/${b}`));
    for (const m of mixes) {
      const t = readStageRecord(stageDir(out, `train/${b}/${m}/seed-13`))!;
      expect(t.summary.steps as number).toBeGreaterThanOrEqual(2);
      expect(Number.isFinite(t.summary.finalLoss as number)).toBe(true);
      expect(existsSync(join(stageDir(out, `train/${b}/${m}/seed-13`), 'export', 'model.safetensors'))).toBe(
        true,
      );
    }
    // every benchmark of the task registry was scored, each set by its registered task
    const ev = stageDir(out, `eval/${b}/ins-dv/seed-13`);
    for (const f of [
      'followir/Robust04InstructionRetrieval.json',
      'followir/News21InstructionRetrieval.json',
      'followir/Core17InstructionRetrieval.json',
      'infosearch/InfoSearch-Length.json',
      'mair/TinyTask.json',
    ])
      expect(existsSync(join(ev, f)), f).toBe(true);
    const robust = JSON.parse(readFileSync(join(ev, 'followir/Robust04InstructionRetrieval.json'), 'utf8'));
    expect(robust.scores.score).toBe(robust.scores.og_map_cut_1000);

    // the report: the paper's table shape with its numbers beside ours, computed verdicts
    const md = readFileSync(join(stageDir(out, 'report'), 'report.md'), 'utf8');
    expect(md).toContain('paper profile, loopback');
    expect(md).toMatch(
      /\| setting \| FollowIR p-MRR \| FollowIR Score \| InfoSearch p-MRR \| MAIR nDCG@10 \|/,
    );
    for (const [label, paper] of [
      ['Ins-orig', '5.21'],
      ['Ins-DV', '7.57'],
      ['All-orig', '5.27'],
      ['All-DV', '8.30'],
    ])
      expect(md).toMatch(new RegExp(`\\| ${label} \\| [-\\d.]+ .*\\| 1 \\| ${paper} \\|`));
    expect(md).toMatch(/^- \*\*INCONCLUSIVE\*\* — Dual-view training raises instruction sensitivity/m);
    expect(md).toMatch(/→ inconclusive \(1 seed\(s\); a verdict needs at least 3\)/);
    const results = JSON.parse(readFileSync(join(stageDir(out, 'report'), 'results.json'), 'utf8'));
    expect(results.profile).toBe('paper');
    expect(results.table).toHaveLength(4);
    expect(results.findings.map((f: { verdict: string }) => f.verdict)).toContain('inconclusive');
    expect(r.stdout).toMatch(/reproduce \(paper, loopback\): \d+ stages ran/);
  }, 240_000);

  it('with a prerequisite gone it lists what is missing and runs nothing (exit 1)', async () => {
    const runDir = join(dir, 'missing');
    const paper = s.config.paper as Record<string, unknown>;
    const r = await reproduce(
      {
        ...s.config,
        synthesis: { ...(s.config.synthesis as object), baseURLs: ['http://127.0.0.1:9/v1'] },
        paper: {
          ...paper,
          datasets: [], // the stand-in's pins of Promptriever, InfoSearch-Length and MAIR dropped
        },
      },
      runDir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the paper profile cannot start; missing \(5\):/);
    expect(r.stderr).toMatch(/synthesis endpoint http:\/\/127\.0\.0\.1:9\/v1: not reachable/);
    for (const d of ['promptriever', 'infosearch-length', 'mair-queries', 'mair-docs'])
      expect(r.stderr).toMatch(new RegExp(`dataset '${d}' .*no pinned revision`));
    expect(existsSync(join(runDir, 'stages'))).toBe(false);
  }, 60_000);

  it('a rerun finds every stage up to date', async () => {
    const r = await reproduce(s.config, out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 0 stages ran, \d+ up to date/);
  }, 60_000);

  it('compute = scale-out exports each training run for the engine and stops with instructions (exit 3)', async () => {
    const runDir = join(dir, 'scale-out');
    const paper = s.config.paper as Record<string, unknown>;
    const r = await reproduce(
      {
        ...s.config,
        paper: {
          ...paper,
          compute: 'scale-out',
          scaleOut: { command: process.execPath, engine: 'sentence-transformers' },
        },
      },
      runDir,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/training is handed to sentence-transformers .*4 exports/);
    const launch = /bash (\S+launch\.sh)/.exec(r.stdout)?.[1];
    expect(launch && existsSync(launch)).toBe(true);
    expect(readFileSync(launch!, 'utf8')).toMatch(/torchrun/);
    expect(existsSync(stageDir(runDir, 'report'))).toBe(false);
    expect(existsSync(stageDir(runDir, 'benchmarks'))).toBe(false);
  }, 120_000);
  it('compute = scale-out with a launcher that fails: exit 1 naming the engine log, nothing evaluated', async () => {
    const runDir = join(dir, 'scale-out-fails');
    const paper = s.config.paper as Record<string, unknown>;
    const r = await reproduce(
      {
        ...s.config,
        paper: {
          ...paper,
          compute: 'scale-out',
          scaleOut: {
            command: 'torchrun',
            // dv_st_train.py --settings settings.json is appended: $0.. of the bash script
            launcher: [
              'bash',
              '-c',
              'echo " 1/9 [00:00<00:01,  9.0it/s]"; echo "engine failed on purpose" >&2; exit 5',
            ],
          },
        },
      },
      runDir,
    );
    expect(r.code, r.stderr).toBe(1);
    const b = s.backbones[0]!;
    const log = join(stageDir(runDir, `train/${b}/ins-orig/seed-13`), 'engine.log');
    expect(r.stderr).toContain(`engine log: ${log}`);
    expect(r.stderr).toMatch(/the engine launcher exited with code 5/);
    expect(r.stderr).toMatch(/\| engine failed on purpose/);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(readFileSync(log, 'utf8')).toContain('engine failed on purpose');
    expect(existsSync(stageDir(runDir, 'report'))).toBe(false);
  }, 120_000);

  it('compute = scale-out with torchrun: 2 gloo processes train each mix, the DAG evaluates and reports (exit 0)', async (ctx) => {
    if (!existsSync(join(venvBin, 'torchrun'))) {
      console.warn(
        'skipping the torchrun run: no .venv-ref (pnpm setup:reference installs torch, sentence-transformers, accelerate, datasets)',
      );
      return ctx.skip();
    }
    const runDir = join(dir, 'scale-out-torchrun');
    const paper = s.config.paper as Record<string, unknown>;
    const config = {
      ...s.config,
      paper: {
        ...paper,
        compute: 'scale-out',
        // the reference venv's torchrun, by path (as $VIRTUAL_ENV/bin or PATH would give it)
        scaleOut: { command: join(venvBin, 'torchrun'), engine: 'sentence-transformers', nprocPerNode: 2 },
      },
    };
    const r = await reproduce(config, runDir);
    expect(r.code, r.stderr.slice(-4000)).toBe(0);
    expect(r.stdout).not.toMatch(/training is handed to/);
    const b = s.backbones[0]!;
    const mixes = ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'];
    for (const m of mixes) {
      const id = `train/${b}/${m}/seed-13`;
      const t = readStageRecord(stageDir(runDir, id))!;
      expect(t, id).not.toBeNull();
      expect(t.summary.launch).toBe('torchrun --standalone --nproc_per_node 2');
      expect(t.summary.steps as number, id).toBeGreaterThanOrEqual(1);
      expect(Number.isFinite(t.summary.finalLoss as number), id).toBe(true);
      expect(t.summary.probeCosine as number).toBeGreaterThanOrEqual(0.999);
      const sd = stageDir(runDir, id);
      // both ranks ran, under gloo, with the global batch split over them
      const engine = JSON.parse(readFileSync(join(sd, 'engine', 'output', 'engine-settings.json'), 'utf8'));
      expect(engine.world_size).toBe(2);
      expect(engine.per_device_train_batch_size).toBe(4);
      expect(engine.gather_across_devices).toBe(true);
      // the engine's progress reached the stage's log; its output is in engine.log
      // (the stand-in config logs every step: one loss line per step)
      const lossLines = r.stderr.match(new RegExp(`${id}: step \\d+/\\d+: loss [\\d.]+`, 'g')) ?? [];
      expect(lossLines.length, id).toBe(t.summary.steps);
      expect(readFileSync(join(sd, 'engine.log'), 'utf8')).toMatch(/"final": /);
      // what the eval stage reads: the ST folder with its ONNX graph, in export/
      for (const f of [
        'config.json',
        'model.safetensors',
        'tokenizer.json',
        'modules.json',
        'onnx/model.onnx',
      ])
        expect(existsSync(join(sd, 'export', f)), `${id} export/${f}`).toBe(true);
      const ev = stageDir(runDir, `eval/${b}/${m}/seed-13`);
      expect(existsSync(join(ev, 'followir/Robust04InstructionRetrieval.json')), m).toBe(true);
    }
    const results = JSON.parse(readFileSync(join(stageDir(runDir, 'report'), 'results.json'), 'utf8'));
    expect(results.table).toHaveLength(4);
    expect(r.stdout).toMatch(/report: .*report\.md/);
  }, 600_000);
});
