/**
 * Reading a built mini world back: paths, splits and stats eagerly; the large files lazily
 * (seeds and general data stream with schema validation; the corpus and the benchmarks load
 * into memory on demand, the benchmarks as `InstructedSet`s through the same loaders that read
 * the real FollowIR and InfoSearch layouts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DataError,
  type InstructedSet,
  Passage,
  readJsonl,
  readJsonlAll,
  SeedExample,
  TrainingExample,
} from '@dv/core';
import { loadFollowIRv1 } from '../loaders/followir-v1.js';
import { loadInfoSearch } from '../loaders/infosearch.js';
import { MINI_FILES } from './build-mini-world.js';
import type { LemmaSplits } from './lemma-splits.js';
import type { MiniWorldStats } from './mini-world-stats.js';

export interface MiniWorld {
  dir: string;
  splits: LemmaSplits & { seed: number };
  stats: MiniWorldStats;
  /** Levers with an InfoSearch-style set. */
  levers: string[];
  paths: { [K in keyof typeof MINI_FILES]: string };
  readSeeds(split: 'train' | 'dev'): AsyncGenerator<SeedExample>;
  readGeneral(): AsyncGenerator<TrainingExample>;
  loadCorpus(): Promise<Passage[]>;
  loadFollowIR(): Promise<InstructedSet>;
  /** The seen-wording split (benchmark/followir-seen/), or null in builds older than mini-world/3. */
  loadFollowIRSeen(): Promise<InstructedSet | null>;
  loadInfoSearch(lever: string): Promise<InstructedSet>;
}

function readJson<T>(path: string): T {
  if (!existsSync(path))
    throw new DataError('missing file (is this a mini world folder? run `dv data build-mini`)', path);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (err) {
    throw new DataError(`invalid JSON: ${(err as Error).message}`, path);
  }
}

export async function loadMiniWorld(dir: string): Promise<MiniWorld> {
  const paths = Object.fromEntries(
    Object.entries(MINI_FILES).map(([k, v]) => [k, join(dir, v)]),
  ) as MiniWorld['paths'];
  const splits = readJson<MiniWorld['splits']>(paths.splits);
  const stats = readJson<MiniWorldStats>(paths.stats);
  const levers = existsSync(paths.infosearch) ? readdirSync(paths.infosearch).sort() : [];
  return {
    dir,
    splits,
    stats,
    levers,
    paths,
    readSeeds: (split) =>
      readJsonl(split === 'train' ? paths.seedsTrain : paths.seedsDev, SeedExample, {
        uniqueBy: (s) => s.id,
      }),
    readGeneral: () => readJsonl(paths.general, TrainingExample, { uniqueBy: (s) => s.id }),
    loadCorpus: () => readJsonlAll(paths.corpus, Passage, { uniqueBy: (p) => p.docid, uniqueName: 'docid' }),
    loadFollowIR: () => loadFollowIRv1(paths.followir, { name: 'mini-followir', origin: dir }),
    loadFollowIRSeen: async () =>
      existsSync(paths.followirSeen)
        ? loadFollowIRv1(paths.followirSeen, { name: 'mini-followir-seen', origin: dir })
        : null,
    loadInfoSearch: async (lever) => {
      if (!levers.includes(lever)) {
        throw new DataError(
          `no InfoSearch-style set for lever "${lever}" (have: ${levers.join(', ')})`,
          paths.infosearch,
        );
      }
      return loadInfoSearch(join(paths.infosearch, lever), { name: `mini-infosearch-${lever}`, origin: dir });
    },
  };
}
