/** `dv eval`: metrics and benchmark runs (@dv/eval), each command under commands/. */
import type { Command } from '../cli-kit.js';
import { evalEncodeCommand } from '../commands/eval-encode.js';
import { evalPmrrCommand } from '../commands/eval-pmrr.js';
import { evalRunCommand } from '../commands/eval-run.js';
import { evalTrecCommand } from '../commands/eval-trec.js';
import { registerTfjsModel } from '../tfjs-model.js';
import { EVAL_SUMMARY } from './eval-trec-only.js';

// `tfjs:DIR` models (@dv/eval alone knows none), for `dv eval run` and `dv eval encode`.
registerTfjsModel();

export const evalCommand: Command = {
  name: 'eval',
  summary: EVAL_SUMMARY,
  subcommands: [evalTrecCommand, evalPmrrCommand, evalRunCommand, evalEncodeCommand],
};
