/**
 * How many stages `dv reproduce` runs at once unless `--jobs N` says (run-dag.ts, stage-pool.ts).
 *
 *   mini:  2 on a machine with 2 or more cores, else 1. Measured on the mini profile (AMD EPYC,
 *          2 cores): a fine-tuning stage alone keeps 1.45 cores busy and an evaluation 1.41, so
 *          one core in four sits idle; two fine-tunes side by side ran 1.4x the steps per second
 *          of one, with byte-identical models. More than 2 was not measured.
 *   paper: 1. Its stages hold a GPU, an endpoint's rate limit or a scale-out launch; two at once
 *          would compete for them.
 */
import { availableParallelism } from 'node:os';

export function defaultJobs(profile: 'mini' | 'paper', cores: number = availableParallelism()): number {
  return profile === 'mini' && cores >= 2 ? 2 : 1;
}
