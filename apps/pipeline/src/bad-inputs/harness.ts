/**
 * The bad-input suite's runner: each case runs the real `dv` command tree in-process (through
 * `runCommand`, as the binary does, with stdout/stderr captured), or as a real child process
 * where signals are involved, inside its own sandbox folder; then the harness checks what a
 * user would check: the exit code, a message that says what is wrong and where (the file, the
 * line where there is one), no stack trace, no hang, nothing written outside `--out`, and no
 * half-written file (atomic-write temporaries, partial downloads).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';

const here = dirname(fileURLToPath(import.meta.url));
export const CLI = join(here, '..', 'cli.ts');

/** What every case can use: its sandbox and the shared loopback servers. */
export interface Fixture {
  /** The case's sandbox folder. */
  dir: string;
  /** `<dir>/out`, the case's output folder (not created). */
  out: string;
  /** Writes an input file under `<dir>/in/` and returns its path. */
  file(name: string, body: string | Buffer): string;
  /** Shared read-only inputs built once (a valid set, seeds, a mini world...). */
  shared: Record<string, string>;
  /** Loopback URLs: chat (fault markers), closed (nothing listens), status servers. */
  urls: Record<string, string>;
}

export interface BadInputCase {
  id: string;
  /** The command, e.g. `eval run`. */
  group: string;
  title: string;
  argv: (f: Fixture) => string[];
  env?: (f: Fixture) => Record<string, string>;
  setup?: (f: Fixture) => void | Promise<void>;
  expect: {
    code: number;
    /** Matched against the message (stderr, or stdout for exit 0). */
    message: RegExp;
    /** Paths the message must name. */
    names?: (f: Fixture) => string[];
  };
  /** Run as a real process (signals). Returns the outcome itself. */
  spawned?: (f: Fixture) => Promise<{ code: number; stdout: string; stderr: string }>;
  /** Files that may appear outside `out` (e.g. a cache the case points at). */
  allowOutside?: RegExp;
}

export interface CaseOutcome {
  id: string;
  group: string;
  title: string;
  command: string;
  code: number | null;
  message: string;
  stackTrace: boolean;
  hang: boolean;
  outside: string[];
  halfWritten: string[];
  problems: string[];
}

/** The API key the remote cases set (OPENAI_API_KEY); it must appear nowhere. */
export const SUITE_KEY = 'sk-suite-0123456789abcdef';

function filesText(dir: string): string {
  return filesUnder(dir)
    .map((p) => {
      try {
        return readFileSync(join(dir, p), 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
}

const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;
const HALF = /(\.tmp-\d+-[0-9a-f]+|\.incomplete)$/;

/** Every file under `dir`, relative to it. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

function sink(): { stream: NodeJS.WritableStream; text: () => string } {
  let buf = '';
  const stream = {
    write(chunk: string | Uint8Array) {
      buf += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { stream, text: () => buf };
}

/** Runs `dv <args>` as a child process (node + tsx directly, no pnpm). */
export function spawnDv(
  args: string[],
  env: Record<string, string> = {},
  onChild?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@dv/source', '--import', 'tsx', CLI, ...args], {
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
    onChild?.(child);
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGKILL' ? 9 : 15),
        stdout,
        stderr,
      }),
    );
  });
}

/** The line a user reads first: the error line, else the first line of the output. */
function messageOf(code: number, stdout: string, stderr: string): string {
  const lines = stderr
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('note:') && !l.startsWith('synth: backend'));
  const err = lines.find((l) => /^(error|internal error|dv\b|failed|partial|stopped)/.test(l)) ?? lines[0];
  if (code !== 0 && err) return err;
  return (stdout.split('\n').find((l) => l.trim()) ?? err ?? '').trim();
}

export async function runCase(
  c: BadInputCase,
  root: string,
  base: Omit<Fixture, 'dir' | 'out' | 'file'>,
  timeoutMs = 60_000,
): Promise<CaseOutcome> {
  const dir = join(root, c.id);
  mkdirSync(join(dir, 'in'), { recursive: true });
  const f: Fixture = {
    ...base,
    dir,
    out: join(dir, 'out'),
    file(name, body) {
      const p = join(dir, 'in', name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, body);
      return p;
    },
  };
  await c.setup?.(f);
  const argv = c.argv(f);
  const before = new Set(filesUnder(root));
  const env = c.env?.(f) ?? {};
  let outcome: { code: number; stdout: string; stderr: string } | 'hang';
  if (c.spawned) {
    outcome = await c.spawned(f);
  } else {
    const saved: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    const out = sink();
    const err = sink();
    let timer: NodeJS.Timeout | undefined;
    try {
      outcome = await Promise.race([
        runCommand(rootCommand, argv, { stdout: out.stream, stderr: err.stream }).then((code) => ({
          code,
          stdout: out.text(),
          stderr: err.text(),
        })),
        new Promise<'hang'>((ok) => {
          timer = setTimeout(() => ok('hang'), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }
  const after = filesUnder(root).filter((p) => !before.has(p));
  const outside = after.filter(
    (p) =>
      !p.startsWith(`${c.id}/out/`) && !p.startsWith(`${c.id}/in/`) && !(c.allowOutside?.test(p) ?? false),
  );
  const halfWritten = filesUnder(root).filter((p) => p.startsWith(`${c.id}/`) && HALF.test(p));
  const command = `dv ${argv
    .map((a) => a.split(root).join('$T'))
    .map((a) => (/[\s"'\\]/.test(a) || a === '' ? JSON.stringify(a) : a))
    .join(' ')}`;
  const problems: string[] = [];
  if (outcome === 'hang') {
    problems.push(`no answer within ${timeoutMs / 1000} s`);
    return {
      id: c.id,
      group: c.group,
      title: c.title,
      command,
      code: null,
      message: '',
      stackTrace: false,
      hang: true,
      outside,
      halfWritten,
      problems,
    };
  }
  const all = `${outcome.stdout}\n${outcome.stderr}`;
  const stackTrace = STACK.test(all) || /internal error/.test(all);
  const message = messageOf(outcome.code, outcome.stdout, outcome.stderr);
  if (outcome.code !== c.expect.code) problems.push(`exit ${outcome.code}, expected ${c.expect.code}`);
  if (!c.expect.message.test(message) && !c.expect.message.test(all))
    problems.push(`message ${JSON.stringify(message)} does not match ${c.expect.message}`);
  for (const n of c.expect.names?.(f) ?? [])
    if (!all.includes(n)) problems.push(`message does not name ${n}`);
  if (stackTrace) problems.push('stack trace or internal error');
  // the key the remote cases configure must never be printed (messages are redacted)
  if (all.includes(SUITE_KEY) || filesText(join(root, c.id)).includes(SUITE_KEY))
    problems.push('the API key was printed or written');
  if (outside.length) problems.push(`wrote outside --out: ${outside.join(', ')}`);
  if (halfWritten.length) problems.push(`half-written files: ${halfWritten.join(', ')}`);
  return {
    id: c.id,
    group: c.group,
    title: c.title,
    command,
    code: outcome.code,
    message: message.split(root).join('$T'),
    stackTrace,
    hang: false,
    outside,
    halfWritten,
    problems,
  };
}
