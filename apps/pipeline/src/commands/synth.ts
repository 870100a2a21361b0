/** `dv synth ...`: polarity-reversal synthesis (@dv/synth). */
import { type Command, notBuilt } from '../cli-kit.js';

export const synthCommand: Command = notBuilt(
  'synth',
  'synthesize complementary instructions',
  'issue: @dv/synth',
);
