/** `dv data`: the mini world and the dataset loaders (@dv/data), each command under commands/. */
import type { Command } from '../cli-kit.js';
import { dataBuildMiniCommand } from '../commands/data-build-mini.js';
import { dataCheckCommand } from '../commands/data-check.js';
import { dataFetchCommand } from '../commands/data-fetch.js';
import { dataStatsCommand } from '../commands/data-stats.js';

export const dataCommand: Command = {
  name: 'data',
  summary: 'build the mini world and load real datasets',
  subcommands: [dataBuildMiniCommand, dataFetchCommand, dataCheckCommand, dataStatsCommand],
};
