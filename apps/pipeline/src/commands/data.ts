/** `dv data ...`: the mini world and dataset loaders (@dv/data). */
import { type Command, notBuilt } from '../cli-kit.js';

export const dataCommand: Command = {
  name: 'data',
  summary: 'build the mini world and load real datasets',
  subcommands: [notBuilt('build-mini', 'build the embedded WordNet mini world', 'issue: @dv/data')],
};
