import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng } from '@dv/core';
import { writeFollowIRv1 } from '@dv/data/testing';
import { createMiniEncoder, exportHuggingFace, initBackend, saveCheckpoint, trainWordPiece } from '@dv/train';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli.ts');
const exec = promisify(execFile);

/** Runs the real CLI in a child process, as `pnpm dv` does. */
async function dv(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', cli, ...args],
      {
        cwd: join(here, '..', '..'),
        env: { ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'silent', ...extraEnv },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const dir = mkdtempSync(join(tmpdir(), 'dv-eval-cli-'));
const file = (name: string, body: string) => {
  const p = join(dir, name);
  writeFileSync(p, body);
  return p;
};

describe('dv eval trec', () => {
  const qrels = file('qrels', '1 0 a 2\n1 0 b 1\n1 0 d 1\n2 0 y 1\n');
  const run = file('run', '1 Q0 a 1 0.9 t\n1 Q0 x 2 0.8 t\n1 Q0 b 3 0.7 t\n2 Q0 y 1 1 t\n2 Q0 z 2 1 t\n');

  it('prints the requested measures as JSON means, with per-query values on request', async () => {
    const r = await dv([
      'eval',
      'trec',
      '--qrels',
      qrels,
      '--run',
      run,
      '--measures',
      'map,recip_rank',
      '--json',
      '--per-query',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // topic 1: AP (1 + 2/3) / 3; topic 2: y and z tie, z ranks first (doc id descending).
    expect(out.map).toBeCloseTo(((1 + 2 / 3) / 3 + 1 / 2) / 2, 12);
    expect(out.recip_rank).toBeCloseTo((1 + 1 / 2) / 2, 12);
    expect(out.per_query['2']).toEqual({ map: 0.5, recip_rank: 0.5 });
  });

  it('prints trec_eval-style lines without --json', async () => {
    const r = await dv(['eval', 'trec', '--qrels', qrels, '--run', run, '--measures', 'P.5']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^P_5\s+\tall\t0\.3000\n$/);
  });

  const bad: Array<[string, string, string, RegExp]> = [
    ['run with 5 columns', 'run', '1 Q0 a 1 0.5\n', /run-bad:1: run line needs 6 columns/],
    ['non-numeric score', 'run', '1 Q0 a 1 0.5 t\n1 Q0 b 2 high t\n', /run-bad:2: score must be a number/],
    [
      'duplicate doc per topic',
      'run',
      '1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n',
      /run-bad:2: doc a appears twice in topic 1/,
    ],
    ['empty run', 'run', '', /run-bad: run file is empty/],
    ['qrels with 3 columns', 'qrels', '1 0 a\n', /qrels-bad:1: qrels line needs 4 columns/],
    ['empty qrels', 'qrels', '', /qrels-bad: qrels file is empty/],
    ['blank line in qrels', 'qrels', '\n', /qrels-bad:1: blank line/],
  ];
  for (const [what, kind, body, re] of bad) {
    it(`${what}: file:line error, exit 1`, async () => {
      const p = file(`${kind}-bad`, body);
      const r = await dv([
        'eval',
        'trec',
        '--qrels',
        kind === 'qrels' ? p : qrels,
        '--run',
        kind === 'run' ? p : run,
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(re);
      expect(r.stdout).toBe('');
    });
  }

  it('an unknown measure is a usage error (exit 2)', async () => {
    const r = await dv(['eval', 'trec', '--qrels', qrels, '--run', run, '--measures', 'ndcg_cut.5,bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown measure "bogus"');
  });
});

describe('dv eval pmrr', () => {
  const og = file('qrels-og', 'a 0 0 1\na 0 1 1\n');
  const changed = file('qrels-changed', 'a 0 0 0\na 0 1 1\n');
  const runA = file('run-a', 'a Q0 0 1 1 t\na Q0 1 2 2 t\na Q0 2 3 3 t\na Q0 3 4 4 t\n');
  const runB = file('run-b', 'a Q0 0 1 4 t\na Q0 1 2 1 t\na Q0 2 3 2 t\na Q0 3 4 3 t\n');
  const args = (runOg: string, runChanged: string) => [
    'eval',
    'pmrr',
    '--qrels-og',
    og,
    '--qrels-changed',
    changed,
    '--run-og',
    runOg,
    '--run-changed',
    runChanged,
    '--json',
  ];

  it('rank 4 -> 1 gives -0.75 and 1 -> 4 gives +0.75', async () => {
    const down = await dv(args(runA, runB));
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({ p_mrr: -0.75, per_query: { a: -0.75 } });
    const up = await dv(args(runB, runA));
    expect(JSON.parse(up.stdout).p_mrr).toBe(0.75);
  });

  // issue 22: packages/eval/README.md said pmrr prints JSON by default; it prints trec_eval-style lines
  it('without --json prints trec_eval-style lines, per topic then all, and the x100 figure on stderr', async () => {
    const r = await dv(args(runA, runB).filter((a) => a !== '--json'));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('p_mrr\ta\t-0.7500\np_mrr\tall\t-0.7500\n');
    expect(r.stderr).toContain('p-MRR -75.00 (x100) over 1 topics');
  });

  it('a bad run line is a file:line error; a topic missing from a run names the run', async () => {
    const bad = file('run-bad-pmrr', 'a Q0 0 1 1 t\na Q0 1 2 x t\n');
    const r = await dv(args(runA, bad));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:2: score must be a number`);
    const other = file('run-other', 'b Q0 0 1 1 t\n');
    const r2 = await dv(args(other, runA));
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`${other}: topic a has changed docs but is missing from the og run`);
  });
});

describe('dv eval run', () => {
  const set = {
    name: 'tiny-followir',
    corpus: [
      { docid: 'd1', title: 'bass', text: 'bass is a freshwater fish' },
      { docid: 'd2', title: 'bass', text: 'bass guitar is a string instrument' },
      { docid: 'd3', title: 'trout', text: 'trout is a fish' },
    ],
    queries: [
      { id: 'q1', query: 'bass', instructions: { og: 'fish or instrument', changed: 'only the instrument' } },
    ],
    qrels: { og: { q1: { d1: 1, d2: 1 } }, changed: { q1: { d1: 0, d2: 1 } } },
    candidates: { q1: ['d1', 'd2', 'd3'] },
  };
  const setFile = file('set.json', JSON.stringify(set));

  it('evaluates BM25 on a FollowIR-form set: table, result JSON, runs, manifest', async () => {
    const out = join(dir, 'out');
    const r = await dv([
      'eval',
      'run',
      '--benchmark',
      'mini',
      '--model',
      'bm25',
      '--set',
      setFile,
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/tiny-followir\s+\d+\.\d\s+-?\d+\.\d/);
    expect(r.stderr).toContain(`${join(out, 'manifest.json')}`);
    const result = JSON.parse(readFileSync(join(out, 'tiny-followir.json'), 'utf8'));
    expect(result.mainMetric).toBe('p-MRR');
    expect(result.model).toBe('bm25');
    expect(existsSync(join(out, 'tiny-followir', 'changed.run'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).kind).toBe('eval-run');
  });

  it('a bad set file is a data error naming the file; an unknown model is a usage error', async () => {
    const bad = file('bad-set.json', JSON.stringify({ ...set, corpus: [{ title: 'x', text: 'y' }] }));
    const r = await dv(['eval', 'run', '--benchmark', 'mini', '--model', 'bm25', '--set', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: corpus.0.docid`);
    const r2 = await dv(['eval', 'run', '--benchmark', 'mini', '--model', 'nope', '--set', setFile]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('unknown model "nope"');
  });

  it('evaluates an OpenAI-compatible embeddings model served on 127.0.0.1, caching the corpus', async () => {
    let requests = 0;
    // Letter-count embeddings over 'abcdefghijklmnopqrstuvwxyz'.
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        requests++;
        const q = JSON.parse(body) as { input: string[]; encoding_format?: string };
        const data = q.input.map((t, index) => {
          const v = new Float32Array(26);
          for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97]! += 1;
          const embedding =
            q.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : [...v];
          return { object: 'embedding', index, embedding };
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data,
            model: 'letters',
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const env = {
      OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      OPENAI_API_KEY: 'sk-loopback',
    };
    const cache = join(dir, 'emb-cache');
    const args = [
      'eval',
      'run',
      '--benchmark',
      'mini',
      '--model',
      'openai:letters',
      '--set',
      setFile,
      '--cache-dir',
      cache,
    ];
    try {
      const r = await dv([...args, '--out', join(dir, 'oai1'), '--json'], env);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.model).toBe('openai:letters');
      expect(out.datasets['tiny-followir']).toHaveProperty('p-MRR');
      expect(readdirSync(cache).filter((f) => f.endsWith('.f32'))).toHaveLength(1);
      const before = requests;
      const r2 = await dv([...args, '--out', join(dir, 'oai2'), '--json'], env);
      expect(JSON.parse(r2.stdout)).toEqual(out);
      expect(requests - before).toBe(0); // corpus, queries and the dimension probe all come from the caches
      const manifest = readFileSync(join(dir, 'oai1', 'manifest.json'), 'utf8');
      expect(manifest).not.toContain('sk-loopback');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('evaluates a @dv/train checkpoint with tfjs:DIR, ranking as its ONNX export does', async () => {
    // What `dv train init` writes: a checkpoint folder with its tokenizer.json; and the same
    // weights exported as an HF folder with an ONNX graph (CLS pooling, the tfjs default).
    await initBackend();
    const tokenizer = await trainWordPiece(
      set.corpus.map((d) => `${d.title} ${d.text}`),
      { vocabSize: 40 },
    );
    const encoder = createMiniEncoder('mini-bert', {
      vocabSize: tokenizer.vocabSize,
      seed: 2,
      overrides: { num_hidden_layers: 1, pad_token_id: tokenizer.padId },
    });
    const ckpt = join(dir, 'tfjs-model');
    await saveCheckpoint(ckpt, { encoder, step: 0, rng: createRng(2) });
    writeFileSync(join(ckpt, 'tokenizer.json'), tokenizer.json);
    const hf = join(dir, 'tfjs-model-hf');
    await exportHuggingFace(hf, {
      config: encoder.config,
      weights: encoder.toWeights(),
      tokenizerJson: join(ckpt, 'tokenizer.json'),
      pooling: 'cls',
      normalize: true,
      withOnnx: true,
    });
    encoder.dispose();
    const run = (model: string, out: string) =>
      dv(['eval', 'run', '--benchmark', 'mini', '--model', model, '--set', setFile, '--out', join(dir, out)]);
    const [t, o] = await Promise.all([run(`tfjs:${ckpt}`, 'tfjs-out'), run(`onnx:${hf}`, 'onnx-out')]);
    expect(t.code, t.stderr).toBe(0);
    expect(o.code, o.stderr).toBe(0);
    expect(t.stdout).toMatch(/tiny-followir\s+-?\d+\.\d\s+-?\d+\.\d/);
    const result = (out: string) => JSON.parse(readFileSync(join(dir, out, 'tiny-followir.json'), 'utf8'));
    const [a, b] = [result('tfjs-out'), result('onnx-out')];
    expect(a.model).toBe('tfjs:tfjs-model');
    expect(a.scores['p-MRR']).toBeTypeOf('number');
    expect(a.scores).toEqual(b.scores);
    const scoreOf = (out: string) =>
      readFileSync(join(dir, out, 'tiny-followir', 'changed.run'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => Number(l.split(' ')[4]));
    const [ta, tb] = [scoreOf('tfjs-out'), scoreOf('onnx-out')];
    expect(ta).toHaveLength(3);
    for (const [i, x] of ta.entries()) expect(x).toBeCloseTo(tb[i]!, 5);
    const manifest = JSON.parse(readFileSync(join(dir, 'tfjs-out', 'manifest.json'), 'utf8'));
    expect(JSON.stringify(manifest)).toContain('"weightsSha256"');
  });

  it('loads FollowIR v1 folders through @dv/data (--data), one set per subfolder', async () => {
    const data = join(dir, 'followir-data');
    const qrels = (o: Record<string, Record<string, number>>) =>
      new Map(Object.entries(o).map(([q, d]) => [q, new Map(Object.entries(d))]));
    await writeFollowIRv1(join(data, 'News21InstructionRetrieval'), {
      name: 'News21InstructionRetrieval',
      corpus: set.corpus,
      queries: set.queries,
      qrels: { og: qrels(set.qrels.og), changed: qrels(set.qrels.changed) },
      candidates: new Map(Object.entries(set.candidates)),
    });
    const r = await dv([
      'eval',
      'run',
      '--benchmark',
      'followir',
      '--model',
      'bm25',
      '--data',
      data,
      '--out',
      join(dir, 'fir'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out.datasets)).toEqual(['News21InstructionRetrieval']);
    // News21's Score is nDCG@5 of the og run.
    expect(out.datasets.News21InstructionRetrieval.score).toBe(
      out.datasets.News21InstructionRetrieval.og_ndcg_cut_5,
    );
    const r2 = await dv(['eval', 'run', '--benchmark', 'mini', '--model', 'bm25']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('mini-followir needs --data DIR');
  });
});
