/**
 * A small command framework for the `dv` CLI: commands form a tree, each parses its own
 * options with node:util's parseArgs, prints `--help` from its own description, and reports
 * user errors as one line (redacted of configured secrets, never a stack trace) with the exit
 * codes of `EXIT`. A command's settings are flags from its zod schema (`flags`, see
 * cli-kit/schema-flags.ts: kind, help, range and default come from the schema); its other
 * options are typed by their specs (`defineCommand`). Messages name the flag, the expected kind
 * and what was given. The context carries the command line as given (`commandLine`), so no
 * command counts argv positions.
 */
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DataError, redactText } from '@dv/core';
import type { z } from 'zod';
import { type DeepPartial, flagOptions, readFlags, type SchemaFlagSet } from './cli-kit/schema-flags.js';
import { UsageError } from './cli-kit/usage-error.js';

export { describeNumber, type NumberSpec, parseNumber } from './cli-kit/parse-number.js';
export {
  type DeepPartial,
  describeIssues,
  type FlagTable,
  type FlagTarget,
  flagOfPath,
  type SchemaFlagSet,
  schemaFlags,
  settingAt,
  settingInfo,
  under,
} from './cli-kit/schema-flags.js';
export { UsageError } from './cli-kit/usage-error.js';

/** Exit codes of every `dv` command (documented in `dv --help`). */
export const EXIT = Object.freeze({
  /** Done. */
  ok: 0,
  /** Failed: bad data, I/O, a remote server. Nothing half-written is left behind. */
  failed: 1,
  /** Bad usage: unknown command or option, a bad option value. Nothing was run. */
  usage: 2,
  /** Partial: some items failed or are pending (the message says how many and how to retry). */
  partial: 3,
  /** Interrupted (SIGINT, SIGTERM or SIGHUP): outputs are consistent; rerun to resume. */
  interrupted: 130,
} as const);

export const EXIT_CODES_HELP = `Exit codes: 0 ok; 1 failed (bad data, I/O, remote server); 2 usage (bad command, option or
value; nothing was run); 3 partial (some items failed or are pending: the message says how many
and how to retry; also a stage not built yet); 130 interrupted (Ctrl-C, or SIGINT / SIGTERM / SIGHUP
to the dv PID: checkpoints are kept; rerun to resume).`;

/** The version of the `dv` app (apps/pipeline/package.json). */
export function dvVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>[string] & {
  description: string;
  valueName?: string;
  /** Shown as "(default: ...)" in help only. */
  helpDefault?: string;
  /** The setting path of a schema flag (set by the kit). */
  setting?: string;
};

export interface CommandContext {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  /** The schema flags given, as one partial config (`flags`); `{}` without a flag set. */
  settings: Record<string, unknown>;
  positionals: string[];
  /** `['dv', ...the command's path, ...its arguments]` as typed, for manifests. */
  commandLine: string[];
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface Command {
  name: string;
  summary: string;
  /** Usage line after `dv <path>`, e.g. `--schema NAME FILE...`. */
  usage?: string;
  description?: string;
  options?: Record<string, OptionSpec>;
  /** Flags from a zod schema (one line per flag in the table): listed before `options`. */
  flags?: SchemaFlagSet;
  subcommands?: Command[];
  allowPositionals?: boolean;
  /** Returns the exit code (default 0). */
  run?: (ctx: CommandContext) => Promise<number | undefined> | number | undefined;
}

let entryScript: string | undefined;
/** Records the script this dv process was started from (cli.ts does, at start-up). */
export function setCliEntry(path: string): void {
  entryScript = path;
}
/**
 * The script this dv process was started from, for commands that start workers of their own
 * (`dv reproduce --jobs`); undefined where the commands run inside another program (`runCommand`
 * called as a library, as the tests do).
 */
export function cliEntry(): string | undefined {
  return entryScript;
}

export class NotBuiltError extends Error {
  override readonly name = 'NotBuiltError';
}

/** A command for a stage that does not exist yet: says so, produces nothing, exits 3. */
export function notBuilt(name: string, summary: string, issue: string): Command {
  return {
    name,
    summary: `${summary} (not built yet)`,
    allowPositionals: true,
    run: () => {
      throw new NotBuiltError(
        `'${name}' is not built yet (${issue}); nothing was run and nothing was written.`,
      );
    },
  };
}

/** The schema flags and the other options of a command, in help order. */
export function allOptions(cmd: Command): Record<string, OptionSpec> {
  return { ...(cmd.flags ? flagOptions(cmd.flags) : {}), ...cmd.options };
}

function helpText(cmd: Command, path: string[]): string {
  const lines: string[] = [];
  const full = ['dv', ...path].join(' ');
  lines.push(`Usage: ${full}${cmd.subcommands ? ' <command>' : ''}${cmd.usage ? ` ${cmd.usage}` : ''}`, '');
  lines.push(cmd.description ?? cmd.summary, '');
  if (cmd.subcommands?.length) {
    lines.push('Commands:');
    const w = Math.max(...cmd.subcommands.map((c) => c.name.length));
    for (const c of cmd.subcommands) lines.push(`  ${c.name.padEnd(w)}  ${c.summary}`);
    lines.push('', `Run '${full} <command> --help' for a command's options.`, '');
  }
  const opts = Object.entries(allOptions(cmd));
  lines.push('Options:');
  const fmt = (name: string, o: OptionSpec) =>
    `--${name}${o.short ? `, -${o.short}` : ''}${o.type === 'string' ? ` ${o.valueName ?? 'VALUE'}` : ''}`;
  const w = Math.max(10, ...opts.map(([n, o]) => fmt(n, o).length));
  for (const [n, o] of opts) {
    const shown = o.default ?? o.helpDefault;
    const def = shown !== undefined ? ` (default: ${String(shown)})` : '';
    lines.push(`  ${fmt(n, o).padEnd(w)}  ${o.description}${def}`);
  }
  lines.push(`  ${'--help, -h'.padEnd(w)}  show this help`);
  if (path.length === 0) lines.push(`  ${'--version'.padEnd(w)}  print the version`);
  lines.push('', EXIT_CODES_HELP);
  return `${lines.join('\n')}\n`;
}

export async function runCommand(
  root: Command,
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = {
    stdout: process.stdout,
    stderr: process.stderr,
  },
): Promise<number> {
  let cmd = root;
  const path: string[] = [];
  let rest = argv;
  while (cmd.subcommands && rest.length > 0 && !rest[0]!.startsWith('-')) {
    const next = cmd.subcommands.find((c) => c.name === rest[0]);
    if (!next) {
      io.stderr.write(
        `dv: unknown command '${[...path, rest[0]].join(' ')}'. Run '${['dv', ...path].join(' ')} --help'.\n`,
      );
      return 2;
    }
    cmd = next;
    path.push(next.name);
    rest = rest.slice(1);
  }
  const where = `dv${path.length ? ` ${path.join(' ')}` : ''}`;
  if (path.length === 0 && rest[0] === '--version') {
    io.stdout.write(`dv ${dvVersion()}\n`);
    return EXIT.ok;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(helpText(cmd, path));
    return EXIT.ok;
  }
  if (!cmd.run && cmd.subcommands) {
    if (rest.length > 0) {
      const what = rest[0]!.startsWith('-') ? `unknown option '${rest[0]}'` : `unexpected '${rest[0]}'`;
      io.stderr.write(`${where}: ${what}; give a command.\nRun '${where} --help' for usage.\n`);
    } else {
      io.stdout.write(helpText(cmd, path));
      io.stderr.write(`${where}: give a command (see above).\n`);
    }
    return EXIT.usage;
  }
  try {
    const specs = allOptions(cmd);
    const options = Object.fromEntries(
      Object.entries(specs).map(
        ([k, { description: _d, valueName: _v, helpDefault: _h, setting: _s, ...o }]) => [k, o],
      ),
    ) as ParseArgsConfig['options'];
    // `--limit -5` would be read as an option "-5": join a negative number to its string option,
    // so the value reaches the typed parser and gets a message about the value
    const stringOptions = new Set(
      Object.entries(specs)
        .filter(([, o]) => o.type === 'string')
        .map(([k]) => `--${k}`),
    );
    const args = rest.flatMap((a, i) =>
      i > 0 && stringOptions.has(rest[i - 1]!) && /^-\d/.test(a)
        ? []
        : stringOptions.has(a) && /^-\d/.test(rest[i + 1] ?? '')
          ? [`${a}=${rest[i + 1]}`]
          : [a],
    );
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({
        args,
        options,
        allowPositionals: cmd.allowPositionals ?? false,
        strict: true,
      });
    } catch (err) {
      // node's message goes on about '--' for positionals; its first sentence is the point
      throw new UsageError((err as Error).message.replace(/\. To specify a positional.*$/s, '.'));
    }
    const values = parsed.values as CommandContext['values'];
    const code = await cmd.run!({
      values,
      settings: cmd.flags ? (readFlags(cmd.flags, values) as Record<string, unknown>) : {},
      positionals: parsed.positionals,
      commandLine: ['dv', ...path, ...rest],
      stdout: io.stdout,
      stderr: io.stderr,
    });
    return code ?? 0;
  } catch (err) {
    const e = err as Error;
    const say = (line: string) => io.stderr.write(`${redactText(line)}\n`);
    if (e instanceof UsageError) {
      say(`${where}: ${e.message}\nRun '${where} --help' for usage.`);
      return EXIT.usage;
    }
    if (e instanceof NotBuiltError) {
      say(`dv: ${e.message}`);
      return EXIT.partial;
    }
    if (e instanceof DataError) {
      say(`error: ${e.message}`);
      return EXIT.failed;
    }
    if (isSystemError(e)) {
      say(`error: ${describeSystemError(e)}`);
      return EXIT.failed;
    }
    // A bug, not a user error: one line by default, the stack trace with DV_DEBUG=1.
    say(
      process.env.DV_DEBUG
        ? `internal error: ${e?.stack ?? String(e)}`
        : `internal error: ${e?.message ?? String(e)} (set DV_DEBUG=1 for the stack trace)`,
    );
    return EXIT.failed;
  }
}

/** An error from the OS (`ENOENT`, `EACCES`, `ENOTDIR`...), raised by node:fs and friends. */
function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return (
    e instanceof Error &&
    typeof (e as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code!)
  );
}

const SYSTEM_ERROR_HINTS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a path component is a file, not a folder',
  EISDIR: 'is a folder, not a file',
  EEXIST: 'already exists',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EINVAL: 'invalid argument (not a regular file system?)',
  ECONNREFUSED: 'connection refused (is the server running?)',
};

/** "PATH: what went wrong (node's message)", without a stack trace. */
function describeSystemError(e: NodeJS.ErrnoException): string {
  const hint = SYSTEM_ERROR_HINTS[e.code ?? ''];
  const path = e.path ?? (e as { dest?: string }).dest;
  return `${path ? `${path}: ` : ''}${hint ?? e.code} (${e.syscall ? `${e.syscall}: ` : ''}${e.message})`;
}

/** A context with option values (a command's, typed or not). */
type Valued = { values: object };
/** The option names of a context: its typed keys, or any name for an untyped one. */
type OptionName<C extends Valued> = Extract<keyof C['values'], string>;
const optionValue = (ctx: Valued, name: string) => (ctx.values as CommandContext['values'])[name];

/** Reads a required string option or throws a usage error naming it. */
export function requireString<C extends Valued>(ctx: C, name: OptionName<C>): string {
  const v = optionValue(ctx, name);
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** A string option restricted to `choices` (undefined when not given). */
export function enumOption<T extends string, C extends Valued>(
  ctx: C,
  name: OptionName<C>,
  choices: readonly T[],
): T | undefined {
  const v = optionValue(ctx, name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${String(v)}'`);
  return v as T;
}

/** A non-empty string option, or undefined when not given (or given empty). */
export function stringOption<C extends Valued>(ctx: C, name: OptionName<C>): string | undefined {
  const v = optionValue(ctx, name);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A list option: repeatable and/or comma-separated (`--formats a,b --formats c`), empty items dropped. */
export function listOption<C extends Valued>(ctx: C, name: OptionName<C>): string[] {
  const v = optionValue(ctx, name);
  return (Array.isArray(v) ? v : typeof v === 'string' ? [v] : [])
    .flatMap((x) => String(x).split(','))
    .filter(Boolean);
}

/** `--shard i/n` (0-based shard i of n), or undefined when not given. */
export function shardOption<C extends Valued>(
  ctx: C,
  name: OptionName<C> = 'shard' as OptionName<C>,
): { index: number; count: number } | undefined {
  const s = stringOption(ctx, name);
  if (s === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m || Number(m[1]) >= Number(m[2]) || Number(m[2]) < 1)
    throw new UsageError(`--${name} must be i/n with 0 <= i < n (e.g. 0/4), got '${s}'`);
  return { index: Number(m[1]), count: Number(m[2]) };
}

/** Http(s) URL options (repeatable), each checked, for endpoints. */
export function urlListOption<C extends Valued>(ctx: C, name: OptionName<C>): string[] {
  const urls = listOption(ctx, name);
  for (const u of urls) {
    let url: URL | undefined;
    try {
      url = new URL(u);
    } catch {}
    if (!url || !['http:', 'https:'].includes(url.protocol))
      throw new UsageError(`--${name} must be an http(s) URL such as http://127.0.0.1:8000/v1, got '${u}'`);
  }
  return urls;
}

type OptionValue<O> = O extends { type: 'boolean' }
  ? O extends { multiple: true }
    ? boolean[]
    : boolean
  : O extends { multiple: true }
    ? string[]
    : string;

/** The values parseArgs gives for `Os` (an option with a `default` is always there). */
export type OptionValues<Os> = {
  -readonly [K in keyof Os as Os[K] extends { default: unknown } ? K : never]: OptionValue<Os[K]>;
} & {
  -readonly [K in keyof Os as Os[K] extends { default: unknown } ? never : K]?: OptionValue<Os[K]>;
};

/** A command's context with typed `values` (its option specs) and `settings` (its flag schema). */
export interface TypedContext<Os, S extends z.ZodType> extends Omit<CommandContext, 'values' | 'settings'> {
  values: OptionValues<Os>;
  settings: DeepPartial<z.infer<S>>;
}

export interface CommandSpec<Os extends Record<string, OptionSpec>, S extends z.ZodType>
  extends Omit<Command, 'options' | 'flags' | 'run'> {
  options?: Os;
  flags?: SchemaFlagSet<S>;
  run?: (ctx: TypedContext<Os, S>) => Promise<number | undefined> | number | undefined;
}

/** A command whose `run` sees typed option values and schema settings (no casts in commands). */
export function defineCommand<
  const Os extends Record<string, OptionSpec> = Record<never, OptionSpec>,
  S extends z.ZodType = z.ZodNever,
>(spec: CommandSpec<Os, S>): Command {
  return spec as unknown as Command;
}
