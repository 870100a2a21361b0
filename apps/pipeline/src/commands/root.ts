/** The command tree of `dv`. Each stage's commands live in their own file. */
import type { Command } from '../cli-kit.js';
import { dataCommand } from './data.js';
import { doctorCommand } from './doctor.js';
import { evalCommand } from './eval.js';
import { reproduceCommand } from './reproduce.js';
import { synthCommand } from './synth.js';
import { trainCommand } from './train.js';
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
  ],
};
