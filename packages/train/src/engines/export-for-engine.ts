/**
 * Hands a training mix and our trainer's settings to an existing distributed engine instead of
 * growing a home-made distributed trainer (issue 16): `dv train export --engine E`.
 *
 * Every engine gets the same texts (our formatter's output, so its own prompt options stay
 * off), the first `hardNegatives` labelled negatives per query (instruction negatives first),
 * and a launch command line (`torchrun --nproc_per_node N ...`) in `launch.sh`, with a
 * `README.md` saying what differs from `dv train run`, and a `manifest.json`.
 *
 *  - sentence-transformers: `train.jsonl` (a `datasets` JSON file: anchor, positive,
 *    negative_1..k, label = the ids the shipped loss and sampler need; an example with P
 *    positives is P rows of one unit, one per positive cell of our loss), `dv_st_train.py`
 *    (CachedMultipleNegativesRankingLoss with our relations, both views of a pair in one
 *    batch, our schedule), `settings.json` (`sentenceTransformersSettings`). Same settings as
 *    our trainer; tested for real under torchrun.
 *  - flagembedding: `train.jsonl` rows `{query, pos, neg}` as FlagEmbedding's
 *    AbsEmbedderTrainDataset reads them (@dv/core's `flagEmbeddingRow`); the launch line of its
 *    encoder-only trainer.
 *  - tevatron: `train.jsonl` rows `{query_id, query, positive_passages, negative_passages}`
 *    (@dv/core's `tevatronRow`: passages as `{docid, text}` with the formatted text, no title
 *    key); Tevatron's train driver.
 * FlagEmbedding and Tevatron know neither dual-view pairs nor false-negative masking: their
 * README says so.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createFormatter,
  DataError,
  type Formatter,
  flagEmbeddingRow,
  type TrainerConfig,
  type TrainingExample,
  tevatronRow,
  writeAtomic,
  writeFileAtomic,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import { readMixUnits } from '../loop/read-mix.js';
import {
  type SentenceTransformersSettings,
  sentenceTransformersSettings,
} from './sentence-transformers-settings.js';

export const trainingEngines = ['sentence-transformers', 'flagembedding', 'tevatron'] as const;
export type TrainingEngine = (typeof trainingEngines)[number];

export interface EngineExportOptions {
  engine: TrainingEngine;
  config: TrainerConfig;
  /** Mix JSONL (what `dv synth mix` writes; Tevatron / Promptriever rows are read too). */
  data: string;
  /** Backbone: our exported HF folder, or a Hub id. */
  init: string;
  out: string;
  /** Processes per node in the launch line (default 1). */
  nprocPerNode?: number;
  command?: string[];
}

export interface EngineExportResult {
  engine: TrainingEngine;
  out: string;
  rows: number;
  pairs: number;
  files: string[];
  /** The launch command line written to launch.sh. */
  launch: string;
  settings?: SentenceTransformersSettings;
}

/** The Python training script shipped with sentence-transformers exports. */
export const ST_SCRIPT = fileURLToPath(new URL('./python/dv_st_train.py', import.meta.url));

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/**
 * Whether `--init` is written as a path rather than a Hub id (`org/name` or `name`: at most one
 * `/`, no leading `.`, `/` or `~`, no `\\`, no trailing `/`): such a value that does not exist
 * is a missing folder, not a model to download (issue 25: `./nope` was taken as a Hub id).
 */
export function isPathLike(init: string): boolean {
  return (
    /^[./~]/.test(init) ||
    init.includes('\\') ||
    (sep !== '/' && init.includes(sep)) ||
    init.endsWith('/') ||
    init.split('/').length > 2 ||
    !/^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/.test(init)
  );
}

/** A backbone folder as an absolute path (checked); a Hub-id-shaped value that is no folder is a Hub id. */
function initRef(init: string): string {
  if (!existsSync(init)) {
    if (isPathLike(init))
      throw new DataError('the backbone folder does not exist (a Hub id is written org/name)', resolve(init));
    return init; // a Hub id
  }
  if (!existsSync(join(init, 'config.json')))
    throw new DataError('no config.json in the backbone folder', init);
  return resolve(init);
}

async function* units(data: string, keep: number): AsyncGenerator<{ examples: TrainingExample[] }> {
  for await (const u of readMixUnits(data, { keepNegatives: keep })) yield { examples: u };
}

/** What the sentence-transformers rows need from a first pass over the mix. */
interface UnitScan {
  /** Extra positives of the widest example (fixed label columns). */
  extra: number;
  /** The unit with the most rows (one row per positive, both views of a pair): its id and rows. */
  largest: { id: string; rows: number };
}

async function scanUnits(o: EngineExportOptions): Promise<UnitScan> {
  let extra = 0;
  let largest = { id: '', rows: 0 };
  for await (const u of units(o.data, o.config.batch.hardNegatives)) {
    let rows = 0;
    for (const e of u.examples) {
      extra = Math.max(extra, e.positives.length - 1);
      rows += e.positives.length;
    }
    const first = u.examples[0]!;
    if (rows > largest.rows) largest = { id: first.pairId ?? first.id, rows };
  }
  return { extra, largest };
}

/**
 * The shipped sampler keeps every unit inside one global batch (units may span the per-device
 * slices: the loss gathers all of them), so the largest unit must fit the global batch of rows.
 * Checked here, before anything is written, instead of in the launched job.
 */
function checkUnitsFit(o: EngineExportOptions, scan: UnitScan): void {
  const batch = o.config.batch.batchSize;
  const { id, rows } = scan.largest;
  if (rows > batch)
    throw new DataError(
      `unit '${id}' has ${rows} rows (one per positive, both views of a pair), more than the batch of ${batch} rows (--batch / batch.batchSize): every unit must fit one batch; use a batch of at least ${rows}`,
      o.data,
    );
}

async function writeSentenceTransformers(
  o: EngineExportOptions,
  f: Formatter,
  out: string,
  scan: UnitScan,
): Promise<Omit<EngineExportResult, 'engine' | 'out'>> {
  const k = o.config.batch.hardNegatives;
  const extra = scan.extra;
  const docIds = new Map<string, number>();
  const groups = new Map<string, number>();
  const queryGroups = new Map<string, number>();
  const id = (m: Map<string, number>, key: string) => {
    let v = m.get(key);
    if (v === undefined) {
      v = m.size;
      m.set(key, v);
    }
    return v;
  };
  let rows = 0;
  let pairs = 0;
  let unit = 0;
  const train = join(out, 'train.jsonl');
  await writeAtomic(train, async (write) => {
    for await (const u of units(o.data, k)) {
      if (u.examples.length > 1) pairs++;
      for (const e of u.examples) {
        const anchor = f.query(e.query, e.instruction);
        const negIds: number[] = [];
        const negTexts: string[] = [];
        for (let i = 0; i < k; i++) {
          const n = e.negatives[i];
          negIds.push(n ? id(docIds, n.docid) : -1);
          negTexts.push(n ? f.document(n) : '');
        }
        // One row per positive (our loss has one term per positive cell); the example's other
        // positives ride along as ids so the loss leaves them out of the row's denominator.
        e.positives.forEach((p, pi) => {
          const positive = f.document(p);
          const row: Record<string, unknown> = { anchor, positive };
          // Missing negatives: a placeholder text whose id (-1) the loss ignores.
          negTexts.forEach((t, i) => {
            row[`negative_${i + 1}`] = t === '' ? positive : t;
          });
          const others = e.positives.filter((_, j) => j !== pi);
          const extraIds = Array.from({ length: extra }, (_, i) =>
            others[i] ? id(docIds, others[i]!.docid) : -1,
          );
          row.label = [
            unit,
            id(groups, anchor),
            id(queryGroups, e.query),
            id(docIds, p.docid),
            ...negIds,
            ...extraIds,
          ];
          write(`${JSON.stringify(row)}\n`);
          rows++;
        });
      }
      unit++;
    }
  });
  if (rows === 0) throw new DataError('the mix has no examples', o.data);
  const settings = sentenceTransformersSettings({
    config: o.config,
    init: o.init,
    train: 'train.jsonl',
    rows,
    extraPositives: extra,
  });
  const settingsPath = join(out, 'settings.json');
  await writeJsonAtomic(settingsPath, settings);
  const script = join(out, 'dv_st_train.py');
  copyFileSync(ST_SCRIPT, script);
  const n = o.nprocPerNode ?? 1;
  const launch = `torchrun --nproc_per_node ${n} dv_st_train.py --settings settings.json`;
  await writeFileAtomic(
    join(out, 'launch.sh'),
    `#!/usr/bin/env bash
# sentence-transformers training with the settings of dv train run (see README.md).
# Needs: torch, sentence-transformers (>= 6), transformers, accelerate, datasets.
# Multi-node: add --nnodes, --node_rank, --master_addr; or: accelerate launch --num_processes ${n} dv_st_train.py --settings settings.json
cd "$(dirname "$0")"
${launch} "$@"
`,
  );
  await writeFileAtomic(
    join(out, 'README.md'),
    `# sentence-transformers export

Launch: \`bash launch.sh\` (= \`${launch}\`). The trained model goes to \`output/final/\`
(a sentence-transformers folder; \`dv eval run --model tfjs:output/final\` loads it).

Same as \`dv train run\`: texts (our formatter's output), InfoNCE at temperature
${o.config.loss.temperature} (CachedMultipleNegativesRankingLoss, scale ${1 / o.config.loss.temperature}),
${k} labelled negatives per query plus in-batch negatives over the global batch of
${o.config.batch.batchSize}, duplicate documents counted once, false negatives of duplicate
queries ignored, both views of each dual-view pair in one batch, AdamW and our learning-rate
schedule, gradient clipping, seed ${o.config.seed}.
Batches: whole units in global batches of ${o.config.batch.batchSize} rows (one row per positive),
short ones filled with a padding row the loss ignores, cut into equal slices per process, so
every process has the same shapes at every step and any process count trains the same batches.
Differs: the batch order (torch's generator, not ours); streaming shuffle buffer (all units are
shuffled); no evaluation callback.
`,
  );
  return {
    rows,
    pairs,
    files: [train, settingsPath, script, join(out, 'launch.sh'), join(out, 'README.md')],
    launch,
    settings,
  };
}

/** The Hugging Face `TrainingArguments` both FlagEmbedding's and Tevatron's drivers take, from our config. */
function hfTrainingArguments(c: TrainerConfig): string[] {
  return [
    `--weight_decay ${c.optimizer.weightDecay}`,
    `--max_grad_norm ${c.optimizer.gradClipNorm ?? 0}`,
    `--logging_steps ${c.logEverySteps}`,
    `--save_steps ${c.checkpoint.everySteps}`,
    `--save_total_limit ${c.checkpoint.keepLast}`,
    `--seed ${c.seed}`,
  ];
}

/**
 * launch.sh lines that set `warmup` to the warmup flag of the transformers that will run the
 * engine, found at launch time: transformers 5 removed `--warmup_ratio` and reads a float below
 * 1 in `--warmup_steps` as a ratio of the total steps; 4.x has `--warmup_ratio` and takes only
 * integers in `--warmup_steps`. (Tevatron declares a `warmup_ratio` field of its own, so on 5
 * that flag still parses and is then ignored: no warmup at all.) The interpreter is the one
 * torchrun runs: `$PYTHON`, else the python next to torchrun (a venv or conda env), else python3.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array expansion, written into launch.sh
const WARMUP_ARGS = '"${warmup[@]}"';

function warmupSelection(c: TrainerConfig): string {
  const r = c.schedule.warmupRatio;
  if (r >= 1)
    throw new DataError(
      `warmup ratio ${r} is not below 1: transformers 5 reads --warmup_steps of 1 or more as a step count`,
      'schedule.warmupRatio',
    );
  return `torchrun_bin="$(command -v torchrun)" || { echo "launch.sh: torchrun is not on PATH" >&2; exit 127; }
python="\${PYTHON:-}"
if [ -z "$python" ]; then
  for p in "$(dirname "$torchrun_bin")/python" "$(dirname "$torchrun_bin")/python3" python3; do
    if command -v "$p" >/dev/null 2>&1; then python="$p"; break; fi
  done
fi
# transformers 5: --warmup_steps takes the ratio (below 1); 4.x: --warmup_ratio.
major="$("$python" -c 'import transformers; print(transformers.__version__.split(".")[0])')"
if [ "$major" -ge 5 ]; then warmup=(--warmup_steps ${r}); else warmup=(--warmup_ratio ${r}); fi`;
}

function flagEmbeddingLaunch(o: EngineExportOptions): string {
  const c = o.config;
  const n = o.nprocPerNode ?? 1;
  const args = [
    `torchrun --nproc_per_node ${n} -m FlagEmbedding.finetune.embedder.encoder_only.base`,
    `--model_name_or_path ${q(o.init)}`,
    '--train_data train.jsonl',
    '--output_dir output',
    `--train_group_size ${c.batch.hardNegatives + 1}`,
    `--query_max_len ${c.model.maxQueryLength}`,
    `--passage_max_len ${c.model.maxDocLength}`,
    `--temperature ${c.loss.temperature}`,
    `--sentence_pooling_method ${c.model.pooling}`,
    `--normalize_embeddings ${c.model.normalize ? 'True' : 'False'}`,
    ...(n > 1 ? ['--negatives_cross_device'] : []),
    `--learning_rate ${c.optimizer.lr}`,
    c.batch.steps ? `--max_steps ${c.batch.steps}` : `--num_train_epochs ${c.batch.epochs}`,
    `--per_device_train_batch_size ${Math.max(1, Math.floor(c.batch.batchSize / n))}`,
    `--gradient_accumulation_steps ${c.batch.gradAccumulation}`,
    WARMUP_ARGS,
    `--lr_scheduler_type ${c.schedule.name === 'constant' ? 'constant_with_warmup' : 'linear'}`,
    ...hfTrainingArguments(c),
    '--dataloader_drop_last False',
  ];
  return args.join(' \\\n  ');
}

function tevatronLaunch(o: EngineExportOptions): string {
  const c = o.config;
  const n = o.nprocPerNode ?? 1;
  const args = [
    `torchrun --nproc_per_node ${n} -m tevatron.retriever.driver.train`,
    `--model_name_or_path ${q(o.init)}`,
    '--dataset_name json',
    '--dataset_path train.jsonl',
    '--output_dir output',
    `--train_group_size ${c.batch.hardNegatives + 1}`,
    '--positive_passage_no_shuffle',
    `--query_max_len ${c.model.maxQueryLength}`,
    `--passage_max_len ${c.model.maxDocLength}`,
    `--pooling ${c.model.pooling}`,
    ...(c.model.normalize ? ['--normalize'] : []),
    `--temperature ${c.loss.temperature}`,
    `--per_device_train_batch_size ${Math.max(1, Math.floor(c.batch.batchSize / n))}`,
    `--gradient_accumulation_steps ${c.batch.gradAccumulation}`,
    `--learning_rate ${c.optimizer.lr}`,
    c.batch.steps ? `--max_steps ${c.batch.steps}` : `--num_train_epochs ${c.batch.epochs}`,
    WARMUP_ARGS,
    ...hfTrainingArguments(c),
    '--attn_implementation sdpa',
  ];
  return args.join(' \\\n  ');
}

async function writeRows(
  o: EngineExportOptions,
  out: string,
  row: (e: TrainingExample) => unknown,
  launch: string,
  name: string,
  preamble: string,
): Promise<Omit<EngineExportResult, 'engine' | 'out'>> {
  const k = o.config.batch.hardNegatives;
  let rows = 0;
  let pairs = 0;
  const train = join(out, 'train.jsonl');
  await writeAtomic(train, async (write) => {
    for await (const u of units(o.data, k)) {
      if (u.examples.length > 1) pairs++;
      for (const e of u.examples) {
        write(`${JSON.stringify(row(e))}\n`);
        rows++;
      }
    }
  });
  if (rows === 0) throw new DataError('the mix has no examples', o.data);
  await writeFileAtomic(
    join(out, 'launch.sh'),
    `#!/usr/bin/env bash
# ${name} training on the exported data (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
${preamble}
${launch} "$@"
`,
  );
  await writeFileAtomic(
    join(out, 'README.md'),
    `# ${name} export

Launch: \`bash launch.sh\`. The rows hold our formatter's output (no ${name} prompt options are
set), the first ${k} labelled negatives per query (instruction negatives first), and the
temperature, lengths, pooling, normalisation, learning rate, warmup, batch and seed of the
trainer config.
Differs from \`dv train run\`: ${name} samples negatives per epoch (it repeats negatives when a
query has fewer than ${k}); it does not know dual-view pairs (rows of a pair are adjacent, but
its sampler may split them), does not ignore false negatives of duplicate queries, and uses its
own learning-rate schedule (linear decay after warmup).
`,
  );
  return { rows, pairs, files: [train, join(out, 'launch.sh'), join(out, 'README.md')], launch };
}

/** Writes the export for one engine into `out`; returns what it wrote. */
export async function exportForEngine(options: EngineExportOptions): Promise<EngineExportResult> {
  if (!existsSync(options.data)) throw new DataError('mix file not found', options.data);
  if (!(trainingEngines as readonly string[]).includes(options.engine))
    throw new Error(`unknown engine '${options.engine}'; one of ${trainingEngines.join(', ')}`);
  // checked before anything is written; a folder is absolute (launch.sh runs in `out`)
  const o = { ...options, init: initRef(options.init) };
  const scan = o.engine === 'sentence-transformers' ? await scanUnits(o) : undefined;
  if (scan) checkUnitsFit(o, scan);
  const preamble = scan ? '' : warmupSelection(o.config);
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const f = createFormatter(o.config.formatter);
  const t0 = performance.now();
  let r: Omit<EngineExportResult, 'engine' | 'out'>;
  if (scan) r = await writeSentenceTransformers(o, f, out, scan);
  else if (o.engine === 'flagembedding')
    r = await writeRows(
      o,
      out,
      (e) => flagEmbeddingRow(e, f),
      flagEmbeddingLaunch(o),
      'FlagEmbedding',
      preamble,
    );
  else r = await writeRows(o, out, (e) => tevatronRow(e, f), tevatronLaunch(o), 'Tevatron', preamble);
  await writeManifest(out, {
    kind: `train-export-${o.engine}`,
    command: o.command,
    config: {
      engine: o.engine,
      trainer: o.config,
      init: o.init,
      data: resolve(o.data),
      nprocPerNode: o.nprocPerNode ?? 1,
    },
    formatter: o.config.formatter,
    seeds: [o.config.seed],
    timings: { seconds: (performance.now() - t0) / 1000 },
    inputs: [o.data],
    outputs: r.files,
  });
  return { engine: o.engine, out, ...r, files: [...r.files, join(out, 'manifest.json')] };
}
