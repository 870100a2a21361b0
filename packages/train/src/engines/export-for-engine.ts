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

async function writeSentenceTransformers(
  o: EngineExportOptions,
  f: Formatter,
  out: string,
): Promise<Omit<EngineExportResult, 'engine' | 'out'>> {
  const k = o.config.batch.hardNegatives;
  // First pass: the widest row (extra positives need fixed label columns).
  let extra = 0;
  for await (const u of units(o.data, k))
    for (const e of u.examples) extra = Math.max(extra, e.positives.length - 1);
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
    `--warmup_ratio ${c.schedule.warmupRatio}`,
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
    `--warmup_ratio ${c.schedule.warmupRatio}`,
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
    `#!/usr/bin/env bash\n# ${name} training on the exported data (see README.md).\ncd "$(dirname "$0")"\n${launch} "$@"\n`,
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
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const f = createFormatter(o.config.formatter);
  const t0 = performance.now();
  let r: Omit<EngineExportResult, 'engine' | 'out'>;
  if (o.engine === 'sentence-transformers') r = await writeSentenceTransformers(o, f, out);
  else if (o.engine === 'flagembedding')
    r = await writeRows(o, out, (e) => flagEmbeddingRow(e, f), flagEmbeddingLaunch(o), 'FlagEmbedding');
  else r = await writeRows(o, out, (e) => tevatronRow(e, f), tevatronLaunch(o), 'Tevatron');
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
