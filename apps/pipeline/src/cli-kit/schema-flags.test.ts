import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, runCommand } from '../cli-kit.js';
import {
  describeIssues,
  flagOfPath,
  flagOptions,
  readFlags,
  schemaFlags,
  settingAt,
  under,
} from './schema-flags.js';
import { UsageError } from './usage-error.js';

const Slice = z.object({
  run: z.object({
    temperature: z.number().min(0).max(2).default(0.7).describe('sampling temperature'),
    steps: z.number().int().positive().optional(),
    hidden: z
      .number()
      .int()
      .positive()
      .refine((h) => h % 64 === 0, 'hidden must be a multiple of 64')
      .default(128),
    share: z.number().gt(0).lt(1).default(0.15),
    lemmas: z.number().int().min(1).default(5),
    mode: z.enum(['fast', 'exact']).default('fast'),
    files: z.array(z.string().min(1)).default([]),
    force: z.boolean().default(false),
    name: z.string().min(1).optional(),
  }),
});
const flags = schemaFlags(Slice, {
  temperature: 'run.temperature',
  steps: { path: 'run.steps', short: 's', help: 'optimiser steps' },
  hidden: 'run.hidden',
  share: 'run.share',
  lemmas: 'run.lemmas',
  mode: 'run.mode',
  file: { path: 'run.files', valueName: 'FILE' },
  force: 'run.force',
  name: 'run.name',
});
const message = (values: Record<string, unknown>) => {
  try {
    readFlags(flags, values);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

describe('flags from a zod schema', () => {
  it('refuses a table path that names no setting', () => {
    expect(() => schemaFlags(Slice, { nope: 'run.nope' })).toThrow(/--nope: 'run.nope' is not a setting/);
    expect(settingAt(Slice, 'run.steps')).toBeDefined();
    expect(settingAt(Slice, 'run.steps.x')).toBeUndefined();
  });

  it('builds options, help text, ranges and defaults from the schema', () => {
    const o = flagOptions(flags);
    expect(o.temperature).toMatchObject({
      type: 'string',
      description: 'sampling temperature (a number from 0 to 2)',
      valueName: 'X',
      helpDefault: '0.7',
      setting: 'run.temperature',
    });
    // the table's help is the fallback when the leaf has no .describe()
    expect(o.steps).toMatchObject({
      short: 's',
      description: 'optimiser steps (a positive integer)',
      valueName: 'N',
    });
    expect(o.steps!.helpDefault).toBeUndefined();
    expect(o.lemmas!.description).toBe('setting run.lemmas (a positive integer)');
    expect(o.mode).toMatchObject({ type: 'string', valueName: 'fast|exact', helpDefault: 'fast' });
    expect(o.file).toMatchObject({ type: 'string', multiple: true, valueName: 'FILE' });
    expect(o.force).toMatchObject({ type: 'boolean' });
    // a range the message cannot state exactly is left to zod's wording
    expect(o.share!.description).toBe('setting run.share');
  });

  it('reads the given flags into one partial config, each checked by its leaf', () => {
    const s = readFlags(flags, {
      temperature: '0.5',
      steps: '10',
      mode: 'exact',
      file: ['a,b', 'c'],
      force: true,
    });
    expect(s).toEqual({
      run: { temperature: 0.5, steps: 10, mode: 'exact', files: ['a', 'b', 'c'], force: true },
    });
    expectTypeOf(s.run).toEqualTypeOf<
      | {
          temperature?: number;
          steps?: number | undefined;
          hidden?: number;
          share?: number;
          lemmas?: number;
          mode?: 'fast' | 'exact';
          files?: string[];
          force?: boolean;
          name?: string | undefined;
        }
      | undefined
    >();
    expect(readFlags(flags, {})).toEqual({});
  });

  it('names the flag, the expected kind or range and what was given', () => {
    expect(message({ temperature: '5' })).toBe("--temperature must be a number from 0 to 2, got '5'");
    expect(message({ temperature: 'warm' })).toBe("--temperature must be a number from 0 to 2, got 'warm'");
    expect(message({ steps: '2.5' })).toBe("--steps must be a positive integer, got '2.5'");
    expect(message({ steps: '' })).toBe("--steps must be a positive integer, got ''");
    expect(message({ lemmas: '0' })).toBe("--lemmas must be a positive integer, got '0'");
    expect(message({ mode: 'slow' })).toBe("--mode must be one of fast, exact, got 'slow'");
    expect(message({ hidden: '100' })).toBe("--hidden: hidden must be a multiple of 64, got '100'");
    expect(message({ share: '1' })).toMatch(/^--share: .*1.*, got '1'$/);
  });

  it('names the flags of a whole-config parse', () => {
    const issues = [
      { path: ['run', 'steps'], message: 'too small' },
      { path: ['run', 'other'], message: 'bad' },
      { path: ['x'], message: 'also bad' },
    ];
    expect(describeIssues(flags, issues, { also: { x: '--x' } })).toBe(
      '--steps: too small; run.other: bad; --x: also bad',
    );
    expect(describeIssues(flags, [{ path: ['steps'], message: 'm' }], { prefix: ['run'] })).toBe(
      '--steps: m',
    );
    expect(flagOfPath(flags, ['run'])).toMatch(/^--temperature \/ --steps/);
    expect(under('trainer', { lr: 'optimizer.lr', s: { path: 'seed', short: 's' } })).toEqual({
      lr: 'trainer.optimizer.lr',
      s: { path: 'trainer.seed', short: 's' },
    });
  });

  it('gives a command typed settings, its command line and help with the schema flags', async () => {
    let seen: unknown;
    const cmd = defineCommand({
      name: 'demo',
      summary: 'demo',
      flags,
      options: { out: { type: 'string', description: 'output folder', valueName: 'DIR' } },
      run(ctx) {
        expectTypeOf(ctx.values.out).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.settings.run?.steps).toEqualTypeOf<number | undefined>();
        seen = { settings: ctx.settings, line: ctx.commandLine, out: ctx.values.out };
        return 0;
      },
    });
    const root = {
      name: 'dv',
      summary: 'root',
      subcommands: [{ name: 'grp', summary: 'g', subcommands: [cmd] }],
    };
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream,
      stderr: { write: (s: string) => err.push(s) } as unknown as NodeJS.WritableStream,
    };
    expect(await runCommand(root, ['grp', 'demo', '-s', '3', '--out', 'o'], io)).toBe(0);
    expect(seen).toEqual({
      settings: { run: { steps: 3 } },
      line: ['dv', 'grp', 'demo', '-s', '3', '--out', 'o'],
      out: 'o',
    });
    expect(await runCommand(root, ['grp', 'demo', '--steps', '-5'], io)).toBe(2);
    expect(err.join('')).toMatch(/dv grp demo: --steps must be a positive integer, got '-5'/);
    expect(await runCommand(root, ['grp', 'demo', '--help'], io)).toBe(0);
    expect(out.join('')).toMatch(
      /--temperature X +sampling temperature \(a number from 0 to 2\) \(default: 0\.7\)/,
    );
    expect(out.join('')).toMatch(/--out DIR +output folder/);
  });
});
