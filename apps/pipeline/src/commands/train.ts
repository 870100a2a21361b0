/** `dv train ...`: the training engine (@dv/train). */
import { type Command, notBuilt } from '../cli-kit.js';

export const trainCommand: Command = notBuilt(
  'train',
  'train a bi-encoder on a data mix',
  'issue: @dv/train',
);
