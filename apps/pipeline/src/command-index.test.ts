import { describe, expect, it } from 'vitest';
import { commandIndex, lazyRootCommand, rootInfo } from './command-index.js';
import { rootCommand } from './commands/root.js';

describe('the lazy command index', () => {
  it('names, orders and summarises the commands as the eager tree does', () => {
    expect(commandIndex.map((c) => [c.name, c.summary])).toEqual(
      rootCommand.subcommands!.map((c) => [c.name, c.summary]),
    );
    expect(rootInfo).toEqual({
      name: rootCommand.name,
      summary: rootCommand.summary,
      description: rootCommand.description,
    });
  });

  it('loads the named command only; the rest are stubs', async () => {
    const root = await lazyRootCommand(['eval', 'pmrr', '--help']);
    const evalCmd = root.subcommands!.find((c) => c.name === 'eval')!;
    expect(evalCmd).toBe(rootCommand.subcommands!.find((c) => c.name === 'eval'));
    expect(root.subcommands!.find((c) => c.name === 'train')).toEqual({
      name: 'train',
      summary: rootCommand.subcommands!.find((c) => c.name === 'train')!.summary,
    });
    // `dv eval trec` gets `dv eval` with the same trec command as its one subcommand
    const trecOnly = (await lazyRootCommand(['eval', 'trec', '--help'])).subcommands!.find(
      (c) => c.name === 'eval',
    )!;
    expect(trecOnly.summary).toBe(evalCmd.summary);
    expect(trecOnly.subcommands).toEqual([evalCmd.subcommands!.find((c) => c.name === 'trec')]);
    const bare = await lazyRootCommand(['--help']);
    expect(bare.subcommands!.every((c) => !c.subcommands && !c.run)).toBe(true);
  });
});
