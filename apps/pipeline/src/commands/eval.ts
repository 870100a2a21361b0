/** `dv eval ...`: metrics and benchmark runs (@dv/eval). */
import { type Command, notBuilt } from '../cli-kit.js';

export const evalCommand: Command = {
  name: 'eval',
  summary: 'metrics and benchmark runs',
  subcommands: [
    notBuilt('trec', 'trec_eval-compatible measures for a run', 'issue: @dv/eval'),
    notBuilt('pmrr', 'FollowIR p-MRR between two runs', 'issue: @dv/eval'),
    notBuilt('run', 'evaluate a model on a benchmark', 'issue: @dv/eval'),
  ],
};
