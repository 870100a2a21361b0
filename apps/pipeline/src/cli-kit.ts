/**
 * A small command framework for the `dv` CLI: commands form a tree, each parses its own
 * options with node:util's parseArgs, prints `--help` from its own description, and reports
 * user errors as one line with a non-zero exit (1 for bad data, 2 for bad usage,
 * 3 for a stage that is not built yet).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DataError } from '@dv/core';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>[string] & {
  description: string;
  valueName?: string;
};

export interface CommandContext {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
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
  subcommands?: Command[];
  allowPositionals?: boolean;
  /** Returns the exit code (default 0). */
  run?: (ctx: CommandContext) => Promise<number | undefined> | number | undefined;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
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
  const opts = Object.entries(cmd.options ?? {});
  lines.push('Options:');
  const fmt = (name: string, o: OptionSpec) =>
    `--${name}${o.short ? `, -${o.short}` : ''}${o.type === 'string' ? ` ${o.valueName ?? 'VALUE'}` : ''}`;
  const w = Math.max(10, ...opts.map(([n, o]) => fmt(n, o).length));
  for (const [n, o] of opts) {
    const def = o.default !== undefined ? ` (default: ${String(o.default)})` : '';
    lines.push(`  ${fmt(n, o).padEnd(w)}  ${o.description}${def}`);
  }
  lines.push(`  ${'--help, -h'.padEnd(w)}  show this help`);
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
        `dv: unknown command '${[...path, rest[0]].join(' ')}'. Run 'dv ${path.join(' ')} --help'.\n`,
      );
      return 2;
    }
    cmd = next;
    path.push(next.name);
    rest = rest.slice(1);
  }
  if (rest.includes('--help') || rest.includes('-h') || (!cmd.run && cmd.subcommands)) {
    io.stdout.write(helpText(cmd, path));
    return rest.includes('--help') || rest.includes('-h') ? 0 : 2;
  }
  try {
    const options = Object.fromEntries(
      Object.entries(cmd.options ?? {}).map(([k, { description: _d, valueName: _v, ...o }]) => [k, o]),
    ) as ParseArgsConfig['options'];
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({
        args: rest,
        options,
        allowPositionals: cmd.allowPositionals ?? false,
        strict: true,
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const code = await cmd.run!({
      values: parsed.values as CommandContext['values'],
      positionals: parsed.positionals,
      stdout: io.stdout,
      stderr: io.stderr,
    });
    return code ?? 0;
  } catch (err) {
    const e = err as Error;
    if (e instanceof UsageError) {
      io.stderr.write(`dv ${path.join(' ')}: ${e.message}\nRun 'dv ${path.join(' ')} --help' for usage.\n`);
      return 2;
    }
    if (e instanceof NotBuiltError) {
      io.stderr.write(`dv: ${e.message}\n`);
      return 3;
    }
    if (e instanceof DataError) {
      io.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    io.stderr.write(`error: ${e.stack ?? e.message}\n`);
    return 1;
  }
}

/** Reads a required string option or throws a usage error naming it. */
export function requireString(ctx: CommandContext, name: string): string {
  const v = ctx.values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}
