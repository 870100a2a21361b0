/** `dv synth`: a synthesis run, with merge, mix and batch as its subcommands (each under commands/). */
import type { Command } from '../cli-kit.js';
import { synthBatchCommand } from '../commands/synth-batch.js';
import { synthMergeCommand } from '../commands/synth-merge.js';
import { synthMixCommand } from '../commands/synth-mix.js';
import { synthRunCommand } from '../commands/synth-run.js';

export const synthCommand: Command = {
  ...synthRunCommand,
  subcommands: [synthMergeCommand, synthMixCommand, synthBatchCommand],
};
