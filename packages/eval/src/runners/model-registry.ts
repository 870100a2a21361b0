/**
 * Model specs as the CLI takes them (`--model SPEC`), resolved through a frozen registry of
 * prefixes to rankers:
 *   bm25                      the lexical baseline (k1 0.9, b 0.4)
 *   bm25:K1,B                 BM25 with other parameters
 */

import { Bm25Ranker } from '../encoders/bm25.js';
import type { EmbeddingCache } from '../search/embedding-cache.js';
import type { Ranker } from '../search/ranker.js';

export interface ModelContext {
  cache?: EmbeddingCache;
  env?: Record<string, string | undefined>;
}

export interface ModelFactory {
  readonly usage: string;
  readonly create: (arg: string, ctx: ModelContext) => Promise<Ranker>;
}

const bm25: ModelFactory = {
  usage: 'bm25[:K1,B]',
  async create(arg) {
    if (!arg) return new Bm25Ranker();
    const [k1, b] = arg.split(',').map(Number);
    if (!Number.isFinite(k1) || !Number.isFinite(b))
      throw new Error(`bm25 parameters must be "K1,B", found "${arg}"`);
    return new Bm25Ranker({ k1, b });
  },
};

export const modelFactories = Object.freeze({ bm25 } as const satisfies Record<string, ModelFactory>);

export async function createRanker(spec: string, ctx: ModelContext = {}): Promise<Ranker> {
  const i = spec.indexOf(':');
  const prefix = i < 0 ? spec : spec.slice(0, i);
  const f = (modelFactories as Record<string, ModelFactory>)[prefix];
  if (!f)
    throw new Error(
      `unknown model "${spec}"; one of: ${Object.values(modelFactories)
        .map((x) => x.usage)
        .join(', ')}`,
    );
  return f.create(i < 0 ? '' : spec.slice(i + 1), ctx);
}
