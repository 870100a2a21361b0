/**
 * The pipeline stages' commands. Each stage's package contributes its own command module;
 * a stage that is not built yet says so and exits 3 without producing anything.
 */
import { type Command, notBuilt } from '../cli-kit.js';

export const dataCommand: Command = {
  name: 'data',
  summary: 'build the mini world and load real datasets',
  subcommands: [notBuilt('build-mini', 'build the embedded WordNet mini world', 'issue: @dv/data')],
};

export const synthCommand: Command = notBuilt(
  'synth',
  'synthesize complementary instructions',
  'issue: @dv/synth',
);
export const trainCommand: Command = notBuilt(
  'train',
  'train a bi-encoder on a data mix',
  'issue: @dv/train',
);
export const evalCommand: Command = {
  name: 'eval',
  summary: 'metrics and benchmark runs',
  subcommands: [
    notBuilt('trec', 'trec_eval-compatible measures for a run', 'issue: @dv/eval'),
    notBuilt('pmrr', 'FollowIR p-MRR between two runs', 'issue: @dv/eval'),
    notBuilt('run', 'evaluate a model on a benchmark', 'issue: @dv/eval'),
  ],
};
export const reproduceCommand: Command = notBuilt(
  'reproduce',
  'run the whole reproduction end to end',
  'issue: pipeline',
);
export const benchCommand: Command = notBuilt(
  'bench',
  'run the benchmarks into docs/benchmarks.md',
  'issue: benchmarks',
);
