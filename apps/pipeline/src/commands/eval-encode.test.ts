import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createMiniEncoder, exportHuggingFace, initBackend, trainWordPiece } from '@dv/train';
import { beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli.ts');
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

describe('dv eval encode + dv eval run --embeddings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-eval-encode-'));
  const words = ['bass', 'trout', 'guitar', 'viola', 'perch', 'cello'];
  const corpus = Array.from({ length: 37 }, (_, i) => ({
    docid: `doc-${i}`,
    title: words[i % 6]!,
    text: `${words[(i * 5) % 6]} is a ${i % 2 ? 'fish' : 'string instrument'}${' indeed'.repeat(i % 4)}`,
  }));
  const set = {
    name: 'tiny-mair',
    corpus,
    queries: words
      .slice(0, 4)
      .map((w, i) => ({ id: `q${i}`, query: w, instructions: { og: i % 2 ? 'a fish' : 'an instrument' } })),
    qrels: {
      og: Object.fromEntries(
        words.slice(0, 4).map((_, i) => [`q${i}`, { [`doc-${i}`]: 1, [`doc-${i + 6}`]: 1 }]),
      ),
    },
  };
  const setFile = join(dir, 'set.json');
  const corpusFile = join(dir, 'corpus.jsonl');
  writeFileSync(setFile, JSON.stringify(set));
  writeFileSync(corpusFile, `${corpus.map((d) => JSON.stringify(d)).join('\n')}\n`);
  const model = join(dir, 'model');

  beforeAll(async () => {
    await initBackend();
    const tok = await trainWordPiece(
      corpus.map((d) => `${d.title} ${d.text}`),
      { vocabSize: 50 },
    );
    writeFileSync(join(dir, 'tokenizer.json'), tok.json);
    const enc = createMiniEncoder('mini-bert', {
      vocabSize: tok.vocabSize,
      seed: 3,
      overrides: { num_hidden_layers: 1, pad_token_id: tok.padId },
    });
    await exportHuggingFace(model, {
      config: enc.config,
      weights: enc.toWeights(),
      tokenizerJson: join(dir, 'tokenizer.json'),
      pooling: 'cls',
      normalize: true,
      withOnnx: true,
    });
    enc.dispose();
  }, 120_000);

  const encode = (shard: string, out: string, extra: string[] = []) =>
    dv([
      'eval',
      'encode',
      '--model',
      `onnx:${model}`,
      '--corpus',
      corpusFile,
      '--shard',
      shard,
      '--out',
      out,
      '--batch-size',
      '4',
      ...extra,
    ]);
  const run = (out: string, extra: string[]) =>
    dv([
      'eval',
      'run',
      '--benchmark',
      'mair',
      '--model',
      `onnx:${model}`,
      '--set',
      setFile,
      '--out',
      out,
      '--top-k',
      '10',
      ...extra,
    ]);

  it('shards encoded separately and merged rank byte-identically to one unsharded encoding', async () => {
    const one = join(dir, 'emb-1');
    const four = join(dir, 'emb-4');
    const r1 = await encode('0/1', one, ['--json']);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(/onnxruntime: CPU execution provider; CUDA not used/);
    expect(r1.stderr).toMatch(/shard 0\/1: rows 0-37 of 37/);
    const shards = await Promise.all(['0/4', '1/4', '2/4', '3/4'].map((s) => encode(s, four)));
    for (const s of shards) expect(s.code, s.stderr).toBe(0);
    expect(readdirSync(four).filter((f) => f.endsWith('.npy'))).toHaveLength(4);
    const again = await encode('2/4', four);
    expect(again.stderr).toMatch(/already complete, nothing encoded/);
    // --json (issue 22): one object on stdout, the notes stay on stderr; without it stdout is empty
    expect(again.stdout).toBe('');
    const j = JSON.parse(r1.stdout);
    expect(j).toMatchObject({
      out: one,
      shard: { index: 0, count: 1 },
      rows: { start: 0, end: 37, total: 37 },
      dim: expect.any(Number),
      skipped: false,
      resumedRows: 0,
      files: { embeddings: join(one, 'embeddings-00000-of-00001.npy') },
    });
    for (const f of Object.values(j.files) as string[]) expect(existsSync(f), f).toBe(true);

    const [a, b, plain] = await Promise.all([
      run(join(dir, 'run-1'), ['--embeddings', one]),
      run(join(dir, 'run-4'), ['--embeddings', four]),
      run(join(dir, 'run-plain'), ['--cache-dir', join(dir, 'cache')]),
    ]);
    for (const r of [a, b, plain]) expect(r.code, r.stderr).toBe(0);
    const runFile = (d: string) => readFileSync(join(dir, d, 'tiny-mair', 'og.run'), 'utf8');
    expect(runFile('run-4')).toBe(runFile('run-1'));
    expect(runFile('run-1').split('\n').length).toBeGreaterThan(30);
    const score = (d: string) => JSON.parse(readFileSync(join(dir, d, 'tiny-mair.json'), 'utf8')).scores;
    expect(score('run-4')).toEqual(score('run-1'));
    // Encoding the whole corpus in one call batches it the same way (32 per call): same ranking.
    const docsOf = (d: string) =>
      runFile(d)
        .split('\n')
        .map((l) => l.split(' ').slice(0, 3).join(' '));
    expect(docsOf('run-plain')).toEqual(docsOf('run-1'));
    expect(JSON.parse(readFileSync(join(dir, 'run-4', 'manifest.json'), 'utf8')).config.embeddings).toBe(
      four,
    );
  }, 120_000);

  it('refuses embeddings made with another formatter, and a missing shard, as data errors', async () => {
    const r = await run(join(dir, 'run-x'), [
      '--embeddings',
      join(dir, 'emb-1'),
      '--document-prefix',
      'passage: ',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/emb-1: the embeddings were made by .* the model given is/);
    const partial = join(dir, 'emb-partial');
    await encode('1/3', partial);
    const p = await run(join(dir, 'run-y'), ['--embeddings', partial]);
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/missing shards 0\/3, 2\/3 \(of 3\)/);
    expect(p.stderr).not.toMatch(/at .*\.ts:\d+/);
  }, 60_000);

  it('int8: dv train onnx writes the int8 graph, encode and run use it, and it stays near float32', async () => {
    const int8Dir = join(dir, 'emb-int8');
    const missing = await encode('0/1', int8Dir, ['--precision', 'int8']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no onnx\/model_qint8\.onnx .*dv train onnx --model .* --precision int8/);
    const w = await dv(['train', 'onnx', '--model', model, '--precision', 'int8']);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/model_qint8\.onnx, .*model_qint8_cls\.onnx \(int8, cls pooling, normalised\)/);
    const again = await dv(['train', 'onnx', '--model', model, '--precision', 'int8']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /model_qint8\.onnx: exists; replace it explicitly \(dv train onnx --force\)/,
    );
    expect((await dv(['train', 'onnx', '--model', model, '--precision', 'int8', '--force'])).code).toBe(0);
    const e = await encode('0/1', int8Dir, ['--precision', 'int8']);
    expect(e.code, e.stderr).toBe(0);
    const { readEmbeddingShards } = await import('@dv/eval');
    const [q, f] = await Promise.all([readEmbeddingShards(int8Dir), readEmbeddingShards(join(dir, 'emb-1'))]);
    expect(q.ids).toEqual(f.ids);
    let minCos = 1;
    let maxDiff = 0;
    for (let r = 0; r < q.ids.length; r++) {
      let dot = 0;
      for (let j = 0; j < q.dim; j++) {
        const a = q.matrix[r * q.dim + j]!;
        const b = f.matrix[r * f.dim + j]!;
        dot += a * b;
        maxDiff = Math.max(maxDiff, Math.abs(a - b));
      }
      minCos = Math.min(minCos, dot);
    }
    expect(maxDiff).toBeGreaterThan(0); // another graph, not the float32 file again
    expect(minCos).toBeGreaterThan(0.99);
    // Queries must be encoded by the same graph as the documents.
    const mixed = await run(join(dir, 'run-mixed'), ['--embeddings', int8Dir]);
    expect(mixed.code).toBe(1);
    const same = await run(join(dir, 'run-int8'), ['--embeddings', int8Dir, '--precision', 'int8']);
    expect(same.code, same.stderr).toBe(0);
  }, 120_000);

  it('a shard killed with SIGKILL mid-way resumes from its checkpoint and ends byte-identical', async () => {
    const big = join(dir, 'big.jsonl');
    const many = Array.from({ length: 4000 }, (_, i) => ({
      docid: `b${i}`,
      title: words[i % 6]!,
      text: `${words[(i * 7) % 6]} number ${i} ${'indeed '.repeat(i % 9)}`,
    }));
    writeFileSync(big, `${many.map((d) => JSON.stringify(d)).join('\n')}\n`);
    const args = (out: string) => [
      '--conditions=@dv/source',
      '--import',
      'tsx',
      cli,
      'eval',
      'encode',
      '--model',
      `onnx:${model}`,
      '--corpus',
      big,
      '--out',
      out,
      '--batch-size',
      '2',
      '--threads',
      '1',
    ];
    const out = join(dir, 'emb-killed');
    const state = join(out, 'embeddings-00000-of-00001.npy.partial.json');
    const child = spawn(process.execPath, args(out), {
      cwd: join(here, '..', '..'),
      env: { ...process.env, DV_PROGRESS: 'silent' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let rowsAtKill = 0;
    for (let i = 0; i < 3000 && rowsAtKill === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      if (existsSync(state)) rowsAtKill = JSON.parse(readFileSync(state, 'utf8')).rows;
    }
    child.kill('SIGKILL');
    await exited;
    expect(rowsAtKill).toBeGreaterThan(0);
    expect(existsSync(join(out, 'shard-00000-of-00001.manifest.json'))).toBe(false);
    // a kill during the state file's atomic write leaves its temporary file: the finish sweeps it
    writeFileSync(join(out, `.embeddings-00000-of-00001.npy.partial.json.tmp-${child.pid}-0badf00d`), '{');
    const resumed = await dv(args(out).slice(4));
    expect(resumed.code, resumed.stderr).toBe(0);
    const m = /resumed: (\d+) rows from an interrupted run/.exec(resumed.stderr);
    expect(m, resumed.stderr).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(rowsAtKill);
    const whole = join(dir, 'emb-whole');
    expect((await dv(args(whole).slice(4))).code).toBe(0);
    const npy = 'embeddings-00000-of-00001.npy';
    expect(readFileSync(join(out, npy)).equals(readFileSync(join(whole, npy)))).toBe(true);
    expect(readdirSync(out).some((f) => f.includes('.partial'))).toBe(false);
  }, 180_000);

  it('bad usage exits 2', async () => {
    expect((await encode('4/4', join(dir, 'z'))).code).toBe(2);
    expect(
      (await dv(['eval', 'encode', '--model', 'bm25', '--corpus', corpusFile, '--out', join(dir, 'z')])).code,
    ).toBe(2);
    expect((await encode('0/1', join(dir, 'z'), ['--precision', 'int4'])).code).toBe(2);
    expect((await dv(['train', 'onnx', '--model', model, '--precision', 'int4'])).code).toBe(2);
    const none = await dv(['train', 'onnx', '--model', join(dir, 'no-such-model')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no-such-model\/config\.json: no config\.json|no-such-model.*config\.json/);
    expect(none.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(
      (
        await dv([
          'eval',
          'encode',
          '--model',
          'bm25',
          '--precision',
          'int8',
          '--corpus',
          corpusFile,
          '--out',
          join(dir, 'z'),
        ])
      ).code,
    ).toBe(2);
  });
});
