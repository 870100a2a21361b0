/**
 * The eager command tree of `dv` (tests and the API report use it; the CLI loads it lazily,
 * command-index.ts). Groups are assembled here and in this folder, so no file under commands/
 * imports another: each command imports the kit and the libraries only.
 */
import type { Command } from '../cli-kit.js';
import { doctorCommand } from '../commands/doctor.js';
import { reproduceCommand } from '../commands/reproduce.js';
import { validateCommand } from '../commands/validate.js';
import { verdictsCommand } from '../commands/verdicts.js';
import { dataCommand } from './data.js';
import { evalCommand } from './eval.js';
import { synthCommand } from './synth.js';
import { trainCommand } from './train.js';

export const rootCommand: Command = {
  name: 'dv',
  summary: 'dual-view instruction-following retrieval: data, synthesis, training, evaluation',
  description: `dv: dual-view instruction-following retrieval.
Synthesize complementary instructions, train bi-encoders on both views, evaluate instruction
sensitivity (FollowIR p-MRR and friends), or reproduce the paper with 'dv reproduce'.`,
  subcommands: [
    reproduceCommand,
    verdictsCommand,
    dataCommand,
    synthCommand,
    trainCommand,
    evalCommand,
    validateCommand,
    doctorCommand,
  ],
};
