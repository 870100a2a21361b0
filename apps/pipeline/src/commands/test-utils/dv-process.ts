/**
 * Test helpers for `dv` as real processes (issue 25: signals, resume): spawn the CLI from its
 * sources, find the filtered child of a `dv` parent through /proc, poll for a condition, and a
 * tiny training fixture (WordPiece vocabulary + mini-bert init + a dual-view toy mix).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..', '..', '..');
const cli = join(appRoot, 'src', 'cli.ts');
const nodeArgs = ['--conditions=@dv/source', '--import', 'tsx', cli];
const env = () => ({ ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'lines' });

/** Runs `dv <args>` to the end. */
export async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...nodeArgs, ...args], {
      cwd: appRoot,
      env: env(),
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts `dv <args>` (stdio piped unless given) and resolves `exited` with its end. */
export function spawnDv(
  args: string[],
  stdio: 'pipe' | 'ignore' = 'pipe',
): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
} {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: appRoot, env: env(), stdio });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => text };
}

/** Polls `check` every 50 ms until it is true or `timeoutMs` passed; returns the last result. */
export async function waitFor(check: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** The `dv` processes (cli.ts in their command line) whose parent is `pid` (tsx's esbuild is not). */
export function dvChildPids(pid: number): number[] {
  return childPids(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(cli);
    } catch {
      return false;
    }
  });
}

/** The pids whose parent is `pid` (from /proc/<pid>/stat). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Whether a process `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** metrics.jsonl's loss records (`{ step, loss }`), in file order. */
export function metricsSteps(out: string): { step: number; loss: number }[] {
  const path = join(out, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        const r = JSON.parse(l) as { step: number; loss?: number };
        return r.loss === undefined ? [] : [{ step: r.step, loss: r.loss }];
      } catch {
        return []; // a line being written
      }
    });
}

/**
 * A tiny training set-up in `dir`: texts.txt, mix.jsonl (dual-view toy rows), tok/ (WordPiece,
 * 150 pieces) and init/ (mini-bert). Returns the paths.
 */
export async function toyTrainingFixture(
  dir: string,
): Promise<{ mix: string; init: string; corpus: string }> {
  const cats = ['animal', 'music', 'food', 'tool', 'plant', 'place'];
  const rows: string[] = [];
  const texts: string[] = [];
  for (let l = 0; l < 40; l++) {
    const a = cats[l % cats.length]!;
    const b = cats[(l * 7 + 1) % cats.length]!;
    const sense = (c: string, k: string) => ({
      docid: `w${l}.${k}`,
      title: `w${l}`,
      text: `w${l}: a ${c} thing ${l % 9}`,
    });
    const [da, db] = [sense(a, 'a'), sense(b, 'b')];
    const common = { query: `w${l}`, pairId: `w${l}` };
    rows.push(
      JSON.stringify({
        id: `w${l}-o`,
        ...common,
        instruction: `Only ${a}.`,
        positives: [da],
        negatives: [db],
        view: 'original',
      }),
      JSON.stringify({
        id: `w${l}-c`,
        ...common,
        instruction: `Not ${a}.`,
        positives: [db],
        negatives: [da],
        view: 'complement',
        originalId: `w${l}-o`,
        synthesisKey: `k${l}`,
      }),
    );
    texts.push(da.text, db.text, `Only ${a}.`, `Not ${a}.`);
  }
  const mix = join(dir, 'mix.jsonl');
  const corpus = join(dir, 'texts.txt');
  const init = join(dir, 'init');
  writeFileSync(mix, `${rows.join('\n')}\n`);
  writeFileSync(corpus, texts.join('\n'));
  const v = await dv(['train', 'vocab', '--out', join(dir, 'tok'), '--vocab-size', '150', corpus]);
  if (v.code !== 0) throw new Error(`dv train vocab: ${v.stderr}`);
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
  if (i.code !== 0) throw new Error(`dv train init: ${i.stderr}`);
  return { mix, init, corpus };
}
