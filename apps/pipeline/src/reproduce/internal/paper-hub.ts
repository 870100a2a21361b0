/** Hub client options of the paper profile (endpoint and cache from `config.paper`, else the environment). */
import type { HubOptions } from '@dv/data';
import type { PaperSection } from '../paper-config.js';

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
