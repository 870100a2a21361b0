/**
 * Every command's flag table walked against its schema (issue 23): each flag maps to an
 * existing setting, no setting has two flags, a flag name means one setting across the tree, and
 * no command declares by hand an option that a schema already types (its kind, range and
 * default come from the schema only).
 */
import { describe, expect, it } from 'vitest';
import { pathOf } from '../cli-kit/schema-flags.js';
import { allOptions, type Command, settingAt, settingInfo } from '../cli-kit.js';
import { rootCommand } from './root.js';

function walk(cmd: Command, path: string[] = []): Array<{ path: string; cmd: Command }> {
  const here = path.length ? [{ path: path.join(' '), cmd }] : [];
  return [...here, ...(cmd.subcommands ?? []).flatMap((c) => walk(c, [...path, c.name]))];
}
const commands = walk(rootCommand);
const withFlags = commands.filter((c) => c.cmd.flags);

describe('flag tables', () => {
  it('exist for every command with number settings', () => {
    expect(withFlags.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        'reproduce',
        'data build-mini',
        'synth',
        'synth mix',
        'synth batch',
        'train vocab',
        'train init',
        'train mlm',
        'train run',
        'train export',
        'eval run',
        'eval encode',
      ]),
    );
  });

  it.each(withFlags)('$path: every flag maps to an existing setting, none twice', ({ cmd }) => {
    const { schema, table } = cmd.flags!;
    const paths = Object.values(table).map(pathOf);
    for (const p of paths) expect(settingAt(schema, p), p).toBeDefined();
    expect(new Set(paths).size).toBe(paths.length);
    for (const p of paths) expect(settingInfo(settingAt(schema, p)!).kind, p).not.toBe('other');
    // a hand-written option never shadows a schema flag
    for (const flag of Object.keys(table)) expect(cmd.options?.[flag], flag).toBeUndefined();
  });

  it('a flag name keeps one kind across the tree, and no hand-written option restates a schema flag', () => {
    const numberFlags = new Set<string>();
    for (const { cmd } of withFlags)
      for (const [flag, t] of Object.entries(cmd.flags!.table))
        if (settingInfo(settingAt(cmd.flags!.schema, pathOf(t))!).kind === 'number') numberFlags.add(flag);
    for (const { path, cmd } of commands)
      for (const [name, o] of Object.entries(cmd.options ?? {})) {
        // a number option typed by hand (with its own range or default) would be one of these
        expect(numberFlags.has(name) ? `${path} --${name}` : '', 'declared by hand, typed by a schema').toBe(
          '',
        );
        expect(o.setting, `${path} --${name}`).toBeUndefined();
        expect(/^-?\d+(\.\d+)?$/.test(String(o.default ?? '')), `${path} --${name}: a number default`).toBe(
          false,
        );
      }
  });

  it.each(withFlags)('$path: help shows every flag with the schema range', ({ cmd }) => {
    const options = allOptions(cmd);
    for (const [flag, t] of Object.entries(cmd.flags!.table)) {
      expect(options[flag]?.setting).toBe(pathOf(t));
      expect(options[flag]?.description.length).toBeGreaterThan(0);
    }
  });
});
