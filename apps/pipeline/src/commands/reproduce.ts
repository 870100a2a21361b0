/** `dv reproduce`: the whole reproduction as a cached DAG of stages. */
import { type Command, notBuilt } from '../cli-kit.js';

export const reproduceCommand: Command = notBuilt(
  'reproduce',
  'run the whole reproduction end to end',
  'issue: pipeline',
);
