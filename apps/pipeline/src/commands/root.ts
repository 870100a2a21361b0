/** The command tree of `dv`. */
import type { Command } from '../cli-kit.js';
import { doctorCommand } from './doctor.js';
import {
  benchCommand,
  dataCommand,
  evalCommand,
  reproduceCommand,
  synthCommand,
  trainCommand,
} from './stages.js';
import { validateCommand } from './validate.js';

export const rootCommand: Command = {
  name: 'dv',
  summary: 'dual-view instruction-following retrieval: data, synthesis, training, evaluation',
  description: `dv: dual-view instruction-following retrieval.
Synthesize complementary instructions, train bi-encoders on both views, evaluate instruction
sensitivity (FollowIR p-MRR and friends), or reproduce the paper with 'dv reproduce'.`,
  subcommands: [
    reproduceCommand,
    dataCommand,
    synthCommand,
    trainCommand,
    evalCommand,
    validateCommand,
    doctorCommand,
    benchCommand,
  ],
};
