/**
 * Bad-input cases for output folders (issue 25): the one output-folder guard (`--out` under
 * /proc hung 8 commands; `--out` a file said "mkdir: EEXIST"), the exclusive lock (a live
 * process holds `<out>/.dv-lock`), and the writes that went outside `--out` (a planted
 * `checkpoints` / `metrics.jsonl` / `log.jsonl` link, a temp file or an embedding cache in the
 * working directory). The harness checks each for its exit code and message, no stack trace,
 * no hang and nothing written outside `--out`; the working-directory cases run as real
 * processes whose working directory is the case's sandbox, so a stray file there is caught.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';
import { type BadInputCase, CLI, type Fixture } from './harness.js';

type Expect = BadInputCase['expect'];
const fails = (message: RegExp, names?: (f: Fixture) => string[]): Expect => ({
  code: 1,
  message,
  ...(names ? { names } : {}),
});

const KERNEL = /--out is on a kernel file system \(proc\); choose a normal folder/;
const A_FILE = /--out is a file, not a folder/;

/** A tiny dual-view mix (4 rows) and the texts of it, for a vocabulary. */
function toyMix(): { mix: string; texts: string } {
  const rows: string[] = [];
  const texts: string[] = [];
  for (let l = 0; l < 2; l++) {
    const da = { docid: `w${l}.a`, title: `w${l}`, text: `w${l}: an animal thing` };
    const db = { docid: `w${l}.b`, title: `w${l}`, text: `w${l}: a music thing` };
    rows.push(
      JSON.stringify({
        id: `w${l}-o`,
        query: `w${l}`,
        pairId: `w${l}`,
        instruction: 'Only animals.',
        positives: [da],
        negatives: [db],
        view: 'original',
      }),
      JSON.stringify({
        id: `w${l}-c`,
        query: `w${l}`,
        pairId: `w${l}`,
        instruction: 'Not animals.',
        positives: [db],
        negatives: [da],
        view: 'complement',
        originalId: `w${l}-o`,
        synthesisKey: `k${l}`,
      }),
    );
    texts.push(da.text, db.text, 'Only animals.', 'Not animals.');
  }
  return { mix: `${rows.join('\n')}\n`, texts: texts.join('\n') };
}

const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
let sharedInit: Promise<string> | null = null;
/** A mini-bert init folder (built once, by the first case that needs it, under its `in/`). */
function miniInit(f: Fixture): Promise<string> {
  sharedInit ??= (async () => {
    const texts = f.file('init-texts.txt', toyMix().texts);
    const tok = join(f.dir, 'in', 'tok');
    const init = join(f.dir, 'in', 'init');
    const v = await runCommand(rootCommand, ['train', 'vocab', '--out', tok, '--vocab-size', '60', texts], {
      stdout: quiet,
      stderr: quiet,
    });
    const i = await runCommand(
      rootCommand,
      ['train', 'init', '--backbone', 'mini-bert', '--tokenizer', join(tok, 'tokenizer.json'), '--out', init],
      { stdout: quiet, stderr: quiet },
    );
    if (v !== 0 || i !== 0) throw new Error('could not build the mini-bert init for the link cases');
    return init;
  })();
  return sharedInit;
}

/** `dv train run` on the toy mix from the shared init into `out` (2 steps, a checkpoint each). */
const trainRunArgv = (f: Fixture, out: string) => [
  'train',
  'run',
  '--mix',
  join(f.dir, 'in', 'mix.jsonl'),
  '--init',
  f.shared.linkInit ?? join(f.dir, 'in', 'init'),
  '--out',
  out,
  '--steps',
  '2',
  '--batch',
  '4',
  '--checkpoint-every',
  '1',
];

/** Writes `<out>/.dv-lock` as a live process (this suite's parent) would hold it. */
function heldLock(f: Fixture, command: string): void {
  mkdirSync(f.out, { recursive: true });
  writeFileSync(
    join(f.out, '.dv-lock'),
    JSON.stringify({
      pid: process.ppid,
      hostname: hostname(),
      command,
      startedAt: new Date().toISOString(),
      token: 'suite',
    }),
  );
}

const tsxLoader = join(
  dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
  'dist',
  'loader.mjs',
);

/** `dv <args>` as a real process whose working directory is `cwd` (a stray file there shows). */
function spawnIn(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@dv/source', '--import', tsxLoader, CLI, ...args], {
      cwd,
      env: { ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The eight commands that hung on `--out /proc/...`, each with the rest of its arguments. */
const writers: Array<{
  id: string;
  group: string;
  argv: (f: Fixture, out: string) => string[];
  flag?: string;
}> = [
  { id: 'synth', group: 'synth', argv: (f, out) => ['synth', '--seeds', f.shared.seeds!, '--out', out] },
  {
    id: 'train-run',
    group: 'train run',
    argv: (f, out) => ['train', 'run', '--mix', f.file('mix.jsonl', '{}\n'), '--init', f.dir, '--out', out],
  },
  {
    id: 'encode',
    group: 'eval encode',
    argv: (f, out) => [
      'eval',
      'encode',
      '--model',
      'bm25',
      '--corpus',
      f.file('corpus.jsonl', '{"docid":"d1","title":"","text":"a"}\n'),
      '--out',
      out,
    ],
  },
  { id: 'reproduce', group: 'reproduce', argv: (_f, out) => ['reproduce', '--quick', '--out', out] },
  {
    id: 'train-export',
    group: 'train export',
    argv: (f, out) => [
      'train',
      'export',
      '--mix',
      f.file('mix.jsonl', '{}\n'),
      '--init',
      f.dir,
      '--out',
      out,
    ],
  },
  {
    id: 'train-mlm',
    group: 'train mlm',
    flag: '--mlm-out',
    argv: (f, out) => ['train', 'mlm', '--corpus', f.file('corpus.txt', 'a b c\n'), '--mlm-out', out],
  },
  {
    id: 'synth-batch',
    group: 'synth batch',
    argv: (f, out) => [
      'synth',
      'batch',
      '--seeds',
      f.shared.seeds!,
      '--out',
      out,
      '--base-url',
      f.urls.closed!,
      '--model',
      'm',
      '--judge',
      'none',
    ],
  },
  {
    id: 'train-vocab',
    group: 'train vocab',
    argv: (f, out) => ['train', 'vocab', '--out', out, f.file('texts.txt', 'a b c\n')],
  },
];

const flagRe = (re: RegExp, flag = '--out') => new RegExp(re.source.replace('--out', flag));

export const OUTPUT_FOLDER_CASES: BadInputCase[] = [
  // --out under /proc: refused at once (it hung forever), nothing written
  ...writers.map(
    (w): BadInputCase => ({
      id: `${w.id}-out-proc`,
      group: w.group,
      title: `${w.flag ?? '--out'} under /proc (used to hang forever)`,
      argv: (f) => w.argv(f, '/proc/self/dv-out'),
      expect: fails(flagRe(KERNEL, w.flag), () => ['/proc/self/dv-out']),
    }),
  ),
  // --out a file: named as such (was "mkdir: EEXIST")
  ...writers.map(
    (w): BadInputCase => ({
      id: `${w.id}-out-file`,
      group: w.group,
      title: `${w.flag ?? '--out'} is a file (said "mkdir: EEXIST")`,
      argv: (f) => w.argv(f, join(f.dir, 'in', 'a-file')),
      setup: (f) => {
        f.file('a-file', 'not a folder\n');
      },
      expect: fails(flagRe(A_FILE, w.flag), (f) => [join(f.dir, 'in', 'a-file')]),
    }),
  ),
  {
    id: 'train-run-out-below-file',
    group: 'train run',
    title: '--out below a file',
    setup: (f) => {
      f.file('a-file', 'x');
    },
    argv: (f) => [
      'train',
      'run',
      '--mix',
      f.file('mix.jsonl', '{}\n'),
      '--init',
      f.dir,
      '--out',
      join(f.dir, 'in', 'a-file', 'run'),
    ],
    expect: fails(/a path component is a file, not a folder: .*a-file \(--out must name a folder\)/),
  },
  // a live process holds the folder: the second writer exits 1 at once naming it
  {
    id: 'train-run-lock-held',
    group: 'train run',
    title: 'another live process holds --out (.dv-lock)',
    setup: (f) => {
      f.file('init/config.json', '{}\n');
      heldLock(f, 'dv train run (another)');
    },
    argv: (f) => [
      'train',
      'run',
      '--mix',
      f.file('mix.jsonl', '{}\n'),
      '--init',
      join(f.dir, 'in', 'init'),
      '--out',
      f.out,
    ],
    expect: fails(new RegExp(`is in use by PID ${process.ppid} .*dv train run \\(another\\)`), (f) => [
      f.out,
    ]),
  },
  {
    id: 'reproduce-lock-held',
    group: 'reproduce',
    title: 'another live process holds the run folder (.dv-lock)',
    setup: (f) => heldLock(f, 'dv reproduce (another)'),
    argv: (f) => ['reproduce', '--quick', '--out', f.out],
    expect: fails(new RegExp(`is in use by PID ${process.ppid} .*dv reproduce \\(another\\)`), (f) => [
      f.out,
    ]),
  },
  // links planted inside --out: refused, nothing written through them
  {
    id: 'train-run-checkpoints-link',
    group: 'train run',
    title: '--out/checkpoints is a link to another folder (wrote checkpoints there)',
    setup: async (f) => {
      f.file('mix.jsonl', toyMix().mix);
      f.shared.linkInit = await miniInit(f);
      mkdirSync(join(f.dir, 'elsewhere'), { recursive: true });
      mkdirSync(f.out, { recursive: true });
      symlinkSync(join(f.dir, 'elsewhere'), join(f.out, 'checkpoints'));
    },
    argv: (f) => trainRunArgv(f, f.out),
    expect: fails(/checkpoints: is a symbolic link inside the output folder/),
  },
  {
    id: 'train-run-metrics-link',
    group: 'train run',
    title: '--out/metrics.jsonl is a link out of --out: replaced, never written through',
    setup: async (f) => {
      f.file('mix.jsonl', toyMix().mix);
      f.shared.linkInit = await miniInit(f);
      mkdirSync(f.out, { recursive: true });
      // a dangling link: a write through it would create the file outside --out (caught)
      symlinkSync(join(f.dir, 'victim.jsonl'), join(f.out, 'metrics.jsonl'));
    },
    argv: (f) => trainRunArgv(f, f.out),
    expect: { code: 0, message: /trained 2 steps/ },
  },
  {
    id: 'synth-log-link',
    group: 'synth',
    title: '--out/log.jsonl is a link to a file outside --out (wrote through it)',
    setup: (f) => {
      mkdirSync(f.out, { recursive: true });
      // a dangling link: a write through it would create the file outside --out (caught)
      symlinkSync(join(f.dir, 'victim.jsonl'), join(f.out, 'log.jsonl'));
    },
    argv: (f) => ['synth', '--seeds', f.shared.seeds!, '--out', f.out, '--judge', 'none'],
    expect: fails(/log\.jsonl: is a symbolic link/),
  },
  {
    id: 'synth-empty-seeds-cwd',
    group: 'synth',
    title: 'empty seed file: no temp file in the working directory (left one)',
    argv: () => ['synth', '--seeds', 'in/s.jsonl', '--out', 'out'],
    setup: (f) => {
      f.file('s.jsonl', '');
    },
    spawned: (f) => spawnIn(f.dir, ['synth', '--seeds', 'in/s.jsonl', '--out', 'out']),
    expect: fails(/s\.jsonl: the seed file holds no seeds/),
  },
  {
    id: 'run-openai-cache-cwd',
    group: 'eval run',
    title: 'openai: model: the embedding cache goes to DV_CACHE, not ./.cache in the working directory',
    argv: (f) => [
      'eval',
      'run',
      '--benchmark',
      'mini',
      '--model',
      'openai:m',
      '--set',
      f.shared.set!,
      '--out',
      'out',
    ],
    spawned: (f) =>
      spawnIn(
        f.dir,
        ['eval', 'run', '--benchmark', 'mini', '--model', 'openai:m', '--set', f.shared.set!, '--out', 'out'],
        {
          OPENAI_BASE_URL: f.urls.closed!,
          OPENAI_API_KEY: 'sk-suite-0123456789abcdef',
          DV_CACHE: join(f.dir, 'dvcache'),
        },
      ),
    expect: fails(/embeddings request to http:\/\/127\.0\.0\.1:\d+\/v1\/? failed/),
    allowOutside: /\/dvcache\//,
  },
  {
    id: 'synth-seeds-out-same-file',
    group: 'synth',
    title: 'seeds written with --out pointing at the seed file itself',
    argv: (f) => ['synth', '--seeds', f.file('s.jsonl', '{}\n'), '--out', join(f.dir, 'in', 's.jsonl')],
    expect: fails(A_FILE),
  },
];
