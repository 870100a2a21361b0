/** Hub client options of the paper profile (endpoint and cache from `config.paper`, else the environment). */

import type { PaperBenchmark, PaperSection, RunConfig } from '@dv/core';
import type { HubOptions } from '@dv/data';

export function paperHubOptions(paper: PaperSection): HubOptions {
  return {
    ...(paper.hubEndpoint ? { endpoint: paper.hubEndpoint } : {}),
    ...(paper.hubCache ? { cacheDir: paper.hubCache } : {}),
  };
}

/** `config.paper`, or an error saying the paper profile needs it. */
export function requirePaper<T extends { paper?: PaperSection }>(config: T): PaperSection {
  if (!config.paper) throw new Error('the paper profile needs its `paper` section (paper-config.ts)');
  return config.paper;
}

/** The paper run's benchmarks: `eval.benchmarks`, which the run config checks are paper benchmarks. */
export function paperBenchmarks(config: Pick<RunConfig, 'eval'>): PaperBenchmark[] {
  return config.eval.benchmarks as PaperBenchmark[];
}
