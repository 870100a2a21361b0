import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), ...args],
      { cwd: join(here, '..', '..'), env: { ...process.env, npm_lifecycle_event: '' } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('dv train', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-train-cli-'));
  const corpus = join(dir, 'glosses.txt');
  const senses = [
    'freshwater fish',
    'lowest adult male singing voice',
    'guitar with four strings',
    'deep sound',
  ];
  writeFileSync(
    corpus,
    Array.from({ length: 200 }, (_, i) => `bass: ${senses[i % 4]} number ${i % 17}`).join('\n'),
  );

  it('vocab then init write a loadable mini backbone', async () => {
    const v = await dv(['train', 'vocab', '--out', join(dir, 'tok'), '--vocab-size', '120', corpus]);
    expect(v.stderr + v.stdout).not.toContain('error');
    expect(v.code).toBe(0);
    const pieces = Number(/wrote .*tokenizer\.json: (\d+) pieces learned from 200 texts/.exec(v.stdout)?.[1]);
    expect(pieces).toBeGreaterThan(40);
    expect(pieces).toBeLessThanOrEqual(120);
    const tokenizer = JSON.parse(readFileSync(join(dir, 'tok', 'tokenizer.json'), 'utf8'));
    expect(tokenizer.model.type).toBe('WordPiece');
    expect(Object.keys(tokenizer.model.vocab)).toHaveLength(pieces);

    const out = join(dir, 'mini-gte');
    const i = await dv([
      'train',
      'init',
      '--backbone',
      'mini-gte',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      out,
      '--layers',
      '3',
    ]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toMatch(
      new RegExp(
        `wrote .*mini-gte: mini-gte, 3 layers, hidden 128, vocabulary ${pieces}, [\\d.]+M parameters`,
      ),
    );
    for (const f of [
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'trainer_state.json',
      'modules.json',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    expect(
      JSON.parse(readFileSync(join(out, '1_Pooling', 'config.json'), 'utf8')).pooling_mode_cls_token,
    ).toBe(true);
    expect(existsSync(join(out, '2_Normalize'))).toBe(true);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      model_type: 'new',
      vocab_size: pieces,
      num_hidden_layers: 3,
      pad_token_id: 0,
    });

    const again = await dv([
      'train',
      'init',
      '--backbone',
      'mini-gte',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      out,
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists and is not empty');
  }, 120_000);

  it('usage errors exit 2 with the option named', async () => {
    const a = await dv([
      'train',
      'init',
      '--backbone',
      'mini-xl',
      '--tokenizer',
      corpus,
      '--out',
      join(dir, 'x'),
    ]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown backbone 'mini-xl'");
    const b = await dv(['train', 'vocab', '--out', join(dir, 'y'), '--vocab-size', 'many', corpus]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--vocab-size must be a positive integer');
  });
});

/** A small dual-view mix: lemma senses in categories, original "Only <a>" / complement "Not <a>". */
function writeToyMix(path: string, lemmas: number): string[] {
  const cats = ['animal', 'music', 'food', 'tool', 'plant', 'place'];
  const rows: string[] = [];
  const texts: string[] = [];
  for (let l = 0; l < lemmas; l++) {
    const a = cats[l % cats.length]!;
    const b = cats[(l * 7 + 1) % cats.length]!;
    const sense = (c: string, k: string) => ({
      docid: `w${l}.${k}`,
      title: `w${l}`,
      text: `w${l}: a ${c} thing number ${l % 9}`,
    });
    const [da, db, dx] = [sense(a, 'a'), sense(b, 'b'), sense(cats[(l + 3) % cats.length]!, 'x')];
    rows.push(
      JSON.stringify({
        id: `w${l}-o`,
        query: `w${l}`,
        instruction: `Only ${a} senses.`,
        positives: [da],
        negatives: [db, dx],
        view: 'original',
        pairId: `w${l}`,
      }),
      JSON.stringify({
        id: `w${l}-c`,
        query: `w${l}`,
        instruction: `Not ${a} senses.`,
        positives: [db],
        negatives: [da, dx],
        view: 'complement',
        pairId: `w${l}`,
        originalId: `w${l}-o`,
        synthesisKey: `k${l}`,
      }),
    );
    texts.push(da.text, db.text, dx.text, `Only ${a} senses.`, `Not ${a} senses.`);
  }
  writeFileSync(path, `${rows.join('\n')}\n`);
  return texts;
}

function metricsLosses(out: string): number[] {
  return readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => 'loss' in r)
    .map((r) => r.loss as number);
}

describe('dv train run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-train-run-'));
  const mix = join(dir, 'mix.jsonl');
  const corpus = join(dir, 'texts.txt');
  writeFileSync(corpus, writeToyMix(mix, 40).join('\n'));
  const init = join(dir, 'init');
  const common = (out: string) => [
    'train',
    'run',
    '--mix',
    mix,
    '--init',
    init,
    '--out',
    out,
    '--steps',
    '40',
    '--batch',
    '16',
    '--hard-negatives',
    '2',
    '--checkpoint-every',
    '5',
    '--seed',
    '3',
  ];

  it('resumes after kill -9 onto the uninterrupted loss curve (1e-4); a finished run says so', async () => {
    expect(
      (await dv(['train', 'vocab', '--out', join(dir, 'tok'), '--vocab-size', '150', corpus])).code,
    ).toBe(0);
    const i = await dv([
      'train',
      'init',
      '--backbone',
      'mini-bert',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      init,
    ]);
    expect(i.code, i.stderr).toBe(0);
    writeFileSync(
      join(dir, 'cfg.json'),
      JSON.stringify({ logEverySteps: 1, model: { maxQueryLength: 16, maxDocLength: 24 } }),
    );
    const cfg = ['--config', join(dir, 'cfg.json')];

    const full = await dv([...common(join(dir, 'full')), ...cfg]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toMatch(/trained 40 steps in [\d.]+ s: final loss [\d.]+/);
    expect(full.stderr).toMatch(/train .*40\/40/);
    const curve = metricsLosses(join(dir, 'full'));
    expect(curve).toHaveLength(40);

    // The same command, killed with SIGKILL once a checkpoint exists, then run again.
    const out = join(dir, 'killed');
    const child = spawn(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), ...common(out), ...cfg],
      { cwd: join(here, '..', '..'), stdio: 'ignore' },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_c, sig) => resolve(sig)),
    );
    const first = join(out, 'checkpoints', 'step-000005', 'trainer_state.json');
    for (let t = 0; t < 1200 && !existsSync(first); t++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(first)).toBe(true);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    const resumed = await dv([...common(out), ...cfg]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('(resumed)');
    const again = metricsLosses(out);
    expect(again).toHaveLength(40);
    for (const [k, l] of again.entries()) expect(Math.abs(l - curve[k]!), `step ${k + 1}`).toBeLessThan(1e-4);

    const done = await dv([...common(out), ...cfg]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('is a finished run (40 steps');
    for (const f of ['export/onnx/model.onnx', 'export/1_Pooling/config.json', 'manifest.json'])
      expect(existsSync(join(out, f)), f).toBe(true);
  }, 180_000);

  it('a bad flag or config field is a usage error naming it (exit 2)', async () => {
    const a = await dv([...common(join(dir, 'bad1')), '--batch', '0']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--batch must be a positive integer');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ batch: { batchSize: 8, hardNegatives: -1 } }));
    const b = await dv([
      ...common(join(dir, 'bad2')).filter((x) => x !== '--hard-negatives' && x !== '2'),
      '--config',
      join(dir, 'bad.json'),
    ]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/invalid trainer config .*batch\.hardNegatives/);
    const c = await dv(['train', 'run', '--mix', mix, '--out', join(dir, 'bad3')]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('give exactly one of --init DIR or --backbone NAME');
    const h = await dv(['train', 'run', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Usage: dv train run');
    expect(h.stdout).toContain('Contrastive fine-tuning of a bi-encoder');
    const t = await dv(['train', '--help']);
    expect(t.stdout).toMatch(/\n {2}run +train a bi-encoder on a data mix/);
    expect(t.stdout).not.toContain('(not built yet)');
  }, 60_000);
});
