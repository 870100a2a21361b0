/**
 * Contrastive fine-tuning of a bi-encoder on a training mix (the paper's "Method": InfoNCE over
 * queries, their positives, labelled and in-batch negatives, tau 0.02; AdamW; warmup-stable-
 * decay), as one library call. The loop, per optimiser step t (0-based):
 *
 *   for each of `gradAccumulation` micro-batches: read the next batch (streamed mix ->
 *     pair-aware shuffle buffer -> pair-keeping packer -> `buildBatch`), format and tokenize
 *     (query + instruction / title + text, max length per side), loss and gradients
 *     (`contrastiveGradients`: plain or gradient cache);
 *   average the gradients, stop on NaN/inf (`TrainingDivergedError`, nothing applied),
 *   clip to `gradClipNorm`, AdamW at lr = learningRate(t, total, peak, schedule).
 *
 * Run folder `out`:
 *   run.json           the run's key and its parts (core's keyed-resume contract, kind
 *                      'train-run': the config, the mix and init digests, the code digest of
 *                      @dv/train), the step plan, and any accepted stale reuse
 *   checkpoints/       step-NNNNNN every `checkpoint.everySteps` and at the end (atomic,
 *                      weights + AdamW moments + RNG + data cursor), the newest `keepLast` kept
 *   metrics.jsonl      per `logEverySteps`: step, epoch, loss, lr, gradNorm, seq/s, tokens/s;
 *                      evaluation records { step, eval }
 *   export/            HF + sentence-transformers folder (CLS/mean pooling + Normalize as
 *                      configured) with onnx/model.onnx
 *   manifest.json      config, input digests, seeds, backend, git commit, timings
 *   summary.json       written last: the result; its presence marks the run complete
 *
 * Determinism and resume: batches are a function of (seed, epoch), dropout masks of the
 * checkpointed RNG, so the same seed and data give the same loss curve, and a re-run after a
 * crash (even kill -9) restarts from the newest checkpoint, replays the data stream to its
 * cursor, drops metrics past it, and continues on the same curve. A re-run of a complete run
 * returns its summary without training; a different config or data in the same folder is an
 * error naming what changed. A folder made by other trainer code (the key differs only in its
 * code part, or run.json predates code digests) is refused too, naming the changed code, unless
 * `reuseStale` accepts it: the run then resumes or is returned as it is, and run.json and
 * manifest.json record `staleReuse: { reusedStale: true, reasons }`.
 */
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  type CacheKey,
  CacheKeyParts,
  type CodeRef,
  cacheKey,
  codeDigests,
  contentHash,
  createFormatter,
  createRng,
  DataError,
  describeZodIssues,
  hashFile,
  keyOfParts,
  type Rng,
  staleReasons,
  TrainerConfig,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import type { z } from 'zod';
import { initBackend } from '../backend/init-backend.js';
import { type Tensor, tf } from '../backend/tf.js';
import {
  checkpointDir,
  corruptCheckpointNote,
  latestCheckpoint,
  loadNewestIntactCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
} from '../checkpoint/checkpoint.js';
import { TransformerEncoder, toForwardInputs } from '../encoders/transformer-encoder.js';
import { encoderWeightsFromSafetensors } from '../export/encoder-weights.js';
import { exportHuggingFace } from '../export/huggingface/export-hugging-face.js';
import { type AdamWState, applyAdamW, clipByGlobalNorm, createAdamWState } from '../optim/adamw.js';
import { learningRate } from '../optim/learning-rate.js';
import { readSafetensors } from '../safetensors/index.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { type BatchExample, buildBatch } from './build-batch.js';
import { contrastiveGradients } from './contrastive-gradients.js';
import { packBatches } from './pack-batches.js';
import { readMixUnits } from './read-mix.js';
import { shuffleBuffer } from './shuffle-buffer.js';
import { tokenizeBatch } from './tokenize-batch.js';
import type { TrainEventListener } from './train-events.js';
import { createTrainedEncoderHandle, type TrainedEncoderHandle } from './trained-encoder-handle.js';
import { TrainingDivergedError } from './training-diverged-error.js';
import { truncateMetrics } from './truncate-metrics.js';

export interface TrainRetrieverOptions {
  config: TrainerConfig | z.input<typeof TrainerConfig>;
  /** Mix JSONL (TrainingExample | DualViewExample rows; Tevatron / Promptriever rows too). */
  data: string;
  /** HF model folder: config.json, model.safetensors, tokenizer.json. */
  init: string;
  /** Run folder. */
  out: string;
  evaluate?: (model: TrainedEncoderHandle, step: number) => Promise<Record<string, number>>;
  /** Which evaluation figure `bestEval` maximises (default: the first key returned). */
  evalKey?: string;
  onEvent?: TrainEventListener;
  /** Aborting checkpoints the current step and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Recorded in the manifest. */
  command?: string[];
  /**
   * Accept a run folder made by other trainer code (its key differs only in the code part):
   * resume it, or return it when complete, and record `staleReuse` in run.json and the manifest.
   * Default false: such a folder is a DataError naming what changed.
   */
  reuseStale?: boolean;
  /**
   * The key's code part (label -> digest) instead of the code digest of `TRAINER_CODE` taken
   * now: for tests and tools that check what changed code does to a run folder.
   */
  code?: Readonly<Record<string, string>>;
}

/** A stale run folder accepted by `reuseStale` (run.json, manifest.json `config.staleReuse`). */
export interface StaleReuse {
  reusedStale: true;
  /** Why the folder was stale (`staleReasons` lines), over every reuse of it. */
  reasons: string[];
  /** The key the folder was made with. */
  previousKey: string | null;
}

export interface TrainRunResult {
  out: string;
  /** HF folder incl. onnx/model.onnx. */
  exportDir: string;
  steps: number;
  finalLoss: number;
  bestEval?: { step: number; key: string; value: number; results: Record<string, number> };
  /** This call continued from a checkpoint. */
  resumed: boolean;
  /** The run was complete before this call; nothing was trained. */
  alreadyComplete: boolean;
  seconds: number;
  /** This call accepted a folder made by other trainer code (`reuseStale`). */
  staleReuse?: StaleReuse;
}

/** The trainer's code: all of @dv/train (loop, losses, encoders, ...) with @dv/core. */
export const TRAINER_CODE: CodeRef = { package: '@dv/train' };

/**
 * A run folder's key: kind 'train-run', slice the trainer config, inputs the mix's sha256 and
 * the init model's digest, code the digest of `TRAINER_CODE` (or `code` as given).
 */
export function trainRunKey(
  config: TrainerConfig,
  dataDigest: string,
  initDigest: string,
  code?: Readonly<Record<string, string>>,
): CacheKey {
  let codePart = code;
  if (!codePart) {
    const taken: Record<string, string> = {};
    for (const [label, d] of Object.entries(codeDigests([TRAINER_CODE], import.meta.url)))
      taken[label] = d.digest;
    codePart = taken;
  }
  return cacheKey({
    kind: 'train-run',
    slice: config,
    inputs: { data: dataDigest, init: initDigest },
    code: codePart,
  });
}

interface RunRecord {
  digest?: string;
  keyParts?: unknown;
  config?: unknown;
  dataDigest?: string;
  initDigest?: string;
  plan?: { batchesPerEpoch: number | null; totalSteps: number };
  staleReuse?: StaleReuse;
}

/**
 * How a recorded run differs from `key`: the `staleReasons` lines, and whether only the code
 * part differs. A run.json from before code digests (no key parts) is stale code when its
 * config, mix and init match (its digest is then the old recipe's).
 */
function compareRun(prev: RunRecord, key: CacheKey): { codeOnly: boolean; reasons: string[] } {
  const parts = CacheKeyParts.safeParse(prev.keyParts);
  if (parts.success)
    return {
      codeOnly: keyOfParts({ ...parts.data, code: key.parts.code }) === key.key,
      reasons: staleReasons(parts.data, key.parts),
    };
  const inputs = key.parts.inputs as { data: string; init: string };
  const legacy = contentHash({ config: key.parts.slice, dataDigest: inputs.data, initDigest: inputs.init });
  if (prev.digest === legacy)
    return {
      codeOnly: true,
      reasons: [
        'run.json was made before code digests were recorded (the trainer code that made it is unknown)',
      ],
    };
  const guess = {
    ...key.parts,
    slice: prev.config ?? null,
    inputs: { data: prev.dataDigest ?? '(unknown)', init: prev.initDigest ?? '(unknown)' },
  };
  const diffs = staleReasons(guess, key.parts);
  return { codeOnly: false, reasons: diffs.length ? diffs : ['run.json records another digest'] };
}

const runFormat = 'dv-train-run-1';

interface DataCursor {
  epoch: number;
  /** Batches of `epoch` already consumed. */
  batch: number;
}

/** Parses a trainer config, naming the offending field on error. */
export function parseTrainerConfig(input: unknown, source = 'trainer config'): TrainerConfig {
  const r = TrainerConfig.safeParse(input);
  if (!r.success) throw new DataError(describeZodIssues(r.error.issues), source);
  return r.data;
}

function requireFile(path: string, what: string): void {
  if (!existsSync(path)) throw new DataError(`${what} is missing`, path);
}

async function* epochBatches(
  data: string,
  config: TrainerConfig,
  epoch: number,
): AsyncGenerator<BatchExample[]> {
  const rng = createRng(config.seed).fork(`data:epoch:${epoch}`);
  const units = readMixUnits(data, { keepNegatives: config.batch.hardNegatives });
  yield* packBatches(
    shuffleBuffer(units, config.batch.shuffleBuffer, rng),
    config.batch.batchSize,
    config.batch.pairViewsInBatch,
  );
}

async function countBatches(data: string, config: TrainerConfig): Promise<number> {
  let n = 0;
  for await (const _ of epochBatches(data, config, 0)) n++;
  return n;
}

/** Endless batch stream from `cursor` (epochs cycle), updating `cursor` as it goes. */
async function* batchesFrom(
  data: string,
  config: TrainerConfig,
  cursor: DataCursor,
): AsyncGenerator<BatchExample[]> {
  for (;;) {
    let i = 0;
    for await (const b of epochBatches(data, config, cursor.epoch)) {
      if (i++ < cursor.batch) continue;
      cursor.batch++;
      yield b;
    }
    if (i === 0) throw new DataError('the mix has no training examples', data);
    cursor.epoch++;
    cursor.batch = 0;
  }
}

function loadInitEncoder(
  init: string,
  dropout: number | null,
): { encoder: TransformerEncoder; raw: unknown } {
  const raw = JSON.parse(readFileSync(join(init, 'config.json'), 'utf8')) as Record<string, unknown>;
  const cfg = dropout === null ? raw : { ...raw, hidden_dropout_prob: dropout };
  const weightsPath = join(init, 'model.safetensors');
  const encoder = TransformerEncoder.fromWeights(
    cfg,
    encoderWeightsFromSafetensors(readSafetensors(weightsPath), weightsPath),
    weightsPath,
  );
  return { encoder, raw };
}

/** Adds an accepted stale reuse to a complete run's manifest.json (config.staleReuse, a note). */
async function recordStaleReuse(out: string, staleReuse: StaleReuse): Promise<void> {
  const path = join(out, 'manifest.json');
  if (!existsSync(path)) return;
  const m = JSON.parse(readFileSync(path, 'utf8')) as { config?: Record<string, unknown>; notes?: string[] };
  await writeJsonAtomic(path, {
    ...m,
    config: { ...(m.config ?? {}), staleReuse },
    notes: [
      ...(m.notes ?? []),
      `reused a run folder made by other trainer code: ${staleReuse.reasons.join('; ')}`,
    ],
  });
}

/** The step plan of a run, fixed when its folder is made (run.json `plan`). */
interface RunPlan {
  batchesPerEpoch: number | null;
  totalSteps: number;
}

/** What `openRunFolder` found: the run's key, and a plan or a finished result when the folder had one. */
interface OpenedRun {
  key: CacheKey;
  dataDigest: string;
  initDigest: string;
  plan?: RunPlan;
  staleReuse?: StaleReuse;
  /** The result of a complete run already in the folder (summary.json). */
  done?: TrainRunResult;
}

const initFiles = ['config.json', 'model.safetensors', 'tokenizer.json'];

/**
 * Step 1: keys the run (config, mix and init-model digests, trainer code) and checks the run
 * folder's run.json against it. A different config, mix or init model is refused; a folder from
 * other trainer code only with `reuseStale` (then recorded, and the folder carries the current
 * key); a complete run (summary.json) is returned as `done`.
 */
async function openRunFolder(options: TrainRetrieverOptions, config: TrainerConfig): Promise<OpenedRun> {
  const { data, init, out } = options;
  const dataDigest = (await hashFile(data)).sha256;
  const initDigest = contentHash(await Promise.all(initFiles.map((f) => hashFile(join(init, f)))));
  const key = trainRunKey(config, dataDigest, initDigest, options.code);
  const digest = key.key;
  const runPath = join(out, 'run.json');
  const summaryPath = join(out, 'summary.json');
  mkdirSync(out, { recursive: true });
  if (!existsSync(runPath)) return { key, dataDigest, initDigest };
  const prev = JSON.parse(readFileSync(runPath, 'utf8')) as RunRecord;
  let staleReuse = prev.staleReuse;
  if (prev.digest !== digest) {
    const { codeOnly, reasons } = compareRun(prev, key);
    if (!codeOnly)
      throw new DataError(
        `this run folder holds a run with a different config, mix or init model (${reasons.join('; ')}); use a new --out (or delete the folder)`,
        out,
      );
    if (!options.reuseStale)
      throw new DataError(
        `this run folder was made by other trainer code (${reasons.join('; ')}); use a new --out (or delete the folder) to train with the current code, or accept the folder as it is with --reuse-stale (reuseStale: recorded in run.json and manifest.json)`,
        out,
      );
    staleReuse = {
      reusedStale: true,
      reasons: [...(prev.staleReuse?.reasons ?? []), ...reasons],
      previousKey: prev.digest ?? null,
    };
    // the folder now carries the current key: a rerun with this code resumes without the flag
    await writeJsonAtomic(runPath, { ...prev, digest, keyParts: key.parts, staleReuse });
  }
  const opened: OpenedRun = {
    key,
    dataDigest,
    initDigest,
    ...(prev.plan ? { plan: prev.plan } : {}),
    ...(staleReuse ? { staleReuse } : {}),
  };
  if (!existsSync(summaryPath)) return opened;
  const done = JSON.parse(readFileSync(summaryPath, 'utf8')) as TrainRunResult;
  if (staleReuse && prev.digest !== digest) {
    await recordStaleReuse(out, staleReuse);
    await writeJsonAtomic(summaryPath, { ...done, staleReuse });
  }
  return {
    ...opened,
    done: {
      ...done,
      ...(staleReuse ? { staleReuse } : {}),
      resumed: false,
      alreadyComplete: true,
      seconds: 0,
    },
  };
}

/** Step 2, for a new run folder: the step count (one streamed pass counts an epoch when no step count is set), written to run.json. */
async function planRun(
  options: TrainRetrieverOptions,
  config: TrainerConfig,
  opened: OpenedRun,
): Promise<RunPlan> {
  const { data, init, out } = options;
  // With a step count the epoch length is not needed; otherwise one streamed pass counts it.
  const batchesPerEpoch = config.batch.steps === undefined ? await countBatches(data, config) : null;
  if (batchesPerEpoch === 0) throw new DataError('the mix has no training examples', data);
  const totalSteps =
    config.batch.steps ??
    Math.max(1, Math.ceil((config.batch.epochs * batchesPerEpoch!) / config.batch.gradAccumulation));
  const plan = { batchesPerEpoch, totalSteps };
  await writeJsonAtomic(join(out, 'run.json'), {
    format: runFormat,
    digest: opened.key.key,
    keyParts: opened.key.parts,
    data,
    dataDigest: opened.dataDigest,
    init,
    initDigest: opened.initDigest,
    plan,
    config,
  });
  return plan;
}

/** The state a training session continues from. */
interface TrainingState {
  encoder: TransformerEncoder;
  optimizer: AdamWState;
  rng: Rng;
  step: number;
  cursor: DataCursor;
  bestEval: TrainRunResult['bestEval'];
  /** The checkpoint resumed from, if any. */
  latest: string | undefined;
  resumed: boolean;
}

/**
 * Step 3: the newest intact checkpoint (a corrupt newest one, digest mismatch or truncation,
 * falls back to the one before, with a note), with metrics.jsonl cut back to its step; else the
 * init model, a fresh optimizer and the seed's RNG, and no metrics.
 */
async function restoreTrainingState(
  init: string,
  config: TrainerConfig,
  ckptRoot: string,
  metricsPath: string,
  emit: TrainEventListener,
): Promise<TrainingState> {
  const ck = loadNewestIntactCheckpoint(ckptRoot, (c) =>
    emit({ type: 'note', message: corruptCheckpointNote(c) }),
  );
  if (ck) {
    const step = ck.step;
    await truncateMetrics(metricsPath, step);
    return {
      encoder: ck.encoder,
      optimizer: ck.optimizer ?? createAdamWState(),
      rng: ck.rng,
      step,
      cursor: ck.extra.cursor as DataCursor,
      bestEval: ck.extra.bestEval as TrainRunResult['bestEval'],
      latest: ck.path,
      resumed: true,
    };
  }
  const encoder = loadInitEncoder(init, config.model.dropout).encoder;
  rmSync(metricsPath, { force: true });
  return {
    encoder,
    optimizer: createAdamWState(),
    rng: createRng(config.seed).fork('train'),
    step: 0,
    cursor: { epoch: 0, batch: 0 },
    bestEval: undefined,
    latest: undefined,
    resumed: false,
  };
}

/** Sequences and tokens seen since the last logged step (throughput figures). */
interface ThroughputWindow {
  t: number;
  steps: number;
  seqs: number;
  tokens: number;
}

/**
 * Step 4, one optimizer step: `gradAccumulation` batches through the contrastive loss, their
 * gradients summed and averaged, clipped by global norm, then AdamW. A non-finite loss or
 * gradient norm throws TrainingDivergedError (naming the latest checkpoint) before any update.
 */
async function optimizerStep(
  state: TrainingState,
  config: TrainerConfig,
  stream: AsyncGenerator<BatchExample[]>,
  tokenizer: HfTokenizer,
  batchOptions: Parameters<typeof buildBatch>[1],
  window: ThroughputWindow,
  totalSteps: number,
  ckptRoot: string,
): Promise<{ loss: number; gradNorm: number; lr: number }> {
  const { encoder, optimizer, rng, step } = state;
  const lr = learningRate(step, totalSteps, config.optimizer.lr, config.schedule);
  const accum = config.batch.gradAccumulation;
  let summed: Map<string, Tensor> | undefined;
  let lossSum = 0;
  for (let a = 0; a < accum; a++) {
    const { value: examples } = await stream.next();
    const batch = buildBatch(examples!, batchOptions);
    const { queries: q, docs: d } = await tokenizeBatch(tokenizer, batch, config.model);
    window.seqs += q.inputIds.length + d.inputIds.length;
    for (const m of [...q.attentionMask, ...d.attentionMask]) for (const x of m) window.tokens += x;
    const inputs = {
      queries: toForwardInputs(q),
      docs: toForwardInputs(d),
      relations: tf.tensor2d(batch.relations),
    };
    const r = contrastiveGradients(
      encoder,
      inputs,
      {
        pooling: config.model.pooling,
        normalize: config.model.normalize,
        temperature: config.loss.temperature,
        training: true,
        gradCacheChunk: config.batch.gradCacheChunk ?? undefined,
      },
      rng,
    );
    tf.dispose([inputs.queries, inputs.docs, inputs.relations] as unknown as Tensor[]);
    lossSum += r.loss;
    if (!summed) summed = r.grads;
    else {
      for (const [n, g] of r.grads) {
        const prev = summed.get(n)!;
        summed.set(n, tf.add(prev, g));
        prev.dispose();
        g.dispose();
      }
    }
  }
  const grads = summed!;
  if (accum > 1)
    for (const [n, g] of grads) {
      grads.set(n, tf.div(g, accum));
      g.dispose();
    }
  const loss = lossSum / accum;
  if (!Number.isFinite(loss)) {
    tf.dispose([...grads.values()]);
    throw new TrainingDivergedError(step + 1, 'loss', loss, latestCheckpoint(ckptRoot));
  }
  const clipped = clipByGlobalNorm(grads, config.optimizer.gradClipNorm ?? Number.POSITIVE_INFINITY);
  tf.dispose([...grads.values()]);
  if (!Number.isFinite(clipped.norm)) {
    tf.dispose([...clipped.grads.values()]);
    throw new TrainingDivergedError(step + 1, 'gradient norm', clipped.norm, latestCheckpoint(ckptRoot));
  }
  applyAdamW(encoder.params, clipped.grads, optimizer, lr, config.optimizer);
  tf.dispose([...clipped.grads.values()]);
  return { loss, gradNorm: clipped.norm, lr };
}

/** Step 5: the trained model as a Hugging Face folder with its ONNX graph, written beside `export/` and renamed in, so `export/` is whole or absent. */
async function exportTrainedModel(
  out: string,
  init: string,
  initConfig: unknown,
  encoder: TransformerEncoder,
  config: TrainerConfig,
  digest: string,
): Promise<string> {
  const exportDir = join(out, 'export');
  const tmp = join(out, `.export.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  await exportHuggingFace(tmp, {
    config: initConfig,
    weights: encoder.toWeights(),
    tokenizerJson: join(init, 'tokenizer.json'),
    pooling: config.model.pooling,
    normalize: config.model.normalize,
    maxSeqLength: Math.max(config.model.maxQueryLength, config.model.maxDocLength),
    metadata: { dv_run_digest: digest },
    withOnnx: true,
  });
  rmSync(exportDir, { recursive: true, force: true });
  renameSync(tmp, exportDir);
  return exportDir;
}

/** The loss of the last logged step in metrics.jsonl (a resumed run that took no step). */
function lastLoggedLoss(metricsPath: string): number | undefined {
  const metrics = readFileSync(metricsPath, 'utf8').trim().split('\n');
  const lossLine = metrics.reverse().find((l) => l.includes('"loss"'));
  return lossLine ? (JSON.parse(lossLine) as { loss: number }).loss : undefined;
}

/**
 * Trains a retriever from an init model folder on a training mix: opens (or resumes) the run
 * folder, plans the steps, restores the newest checkpoint or starts from the init model, runs
 * the optimizer steps with logging, evaluation and checkpoints, exports the model and writes the
 * manifest and summary.json. Rerunning a complete folder returns its summary.
 */
export async function trainRetriever(options: TrainRetrieverOptions): Promise<TrainRunResult> {
  const started = performance.now();
  const config = parseTrainerConfig(options.config);
  const { data, init, out } = options;
  requireFile(data, 'training mix');
  for (const f of initFiles) requireFile(join(init, f), `init model file ${f}`);
  const emit = options.onEvent ?? (() => {});
  const backend = await initBackend();

  const opened = await openRunFolder(options, config);
  if (opened.done) return opened.done;
  const { staleReuse } = opened;
  const digest = opened.key.key;
  const plan = opened.plan ?? (await planRun(options, config, opened));
  const totalSteps = plan.totalSteps;

  const tokenizer = HfTokenizer.fromFile(join(init, 'tokenizer.json'));
  const formatter = createFormatter(config.formatter);
  const ckptRoot = join(out, 'checkpoints');
  const metricsPath = join(out, 'metrics.jsonl');
  const initRaw = JSON.parse(readFileSync(join(init, 'config.json'), 'utf8')) as unknown;
  const state = await restoreTrainingState(init, config, ckptRoot, metricsPath, emit);
  const { encoder, resumed, latest } = state;

  const handle = createTrainedEncoderHandle(encoder, tokenizer, formatter, config);
  const batchOptions = {
    hardNegatives: config.batch.hardNegatives,
    inBatchNegatives: config.loss.inBatchNegatives,
    maskFalseNegatives: config.loss.maskFalseNegatives,
    formatter,
  };
  const stream = batchesFrom(data, config, state.cursor);
  // O_NOFOLLOW: a metrics.jsonl link planted in the run folder is refused (ELOOP), never
  // appended through (issue 25)
  const appendFlags = constants.O_APPEND | constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW;
  const log = (record: Record<string, unknown>) => {
    const fd = openSync(metricsPath, appendFlags, 0o666);
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
    } finally {
      closeSync(fd);
    }
  };
  const checkpoint = async () => {
    const { step, bestEval } = state;
    const path = checkpointDir(ckptRoot, step);
    await saveCheckpoint(path, {
      encoder,
      optimizer: state.optimizer,
      step,
      rng: state.rng,
      extra: { cursor: { ...state.cursor }, digest, ...(bestEval ? { bestEval } : {}) },
    });
    pruneCheckpoints(ckptRoot, config.checkpoint.keepLast);
    emit({ type: 'checkpoint', step, path });
    return path;
  };
  const runEval = async () => {
    if (!options.evaluate) return;
    const { step, bestEval } = state;
    const results = await options.evaluate(handle, step);
    log({ step, eval: results });
    emit({ type: 'eval', step, results });
    const key = options.evalKey ?? Object.keys(results)[0];
    const value = key === undefined ? undefined : results[key];
    if (key !== undefined && value !== undefined && (!bestEval || value > bestEval.value))
      state.bestEval = { step, key, value, results };
  };

  emit({
    type: 'start',
    job: 'retriever',
    out,
    totalSteps,
    startStep: state.step,
    resumed,
    backend: backend.choice,
  });
  const sessionStart = performance.now();
  const sessionFirstStep = state.step;
  let window: ThroughputWindow = { t: performance.now(), steps: 0, seqs: 0, tokens: 0 };
  let lastLoss = Number.NaN;
  let lastCheckpointStep = state.step;
  try {
    while (state.step < totalSteps) {
      if (options.signal?.aborted) {
        if (lastCheckpointStep !== state.step) await checkpoint();
        throw options.signal.reason ?? new Error('training aborted');
      }
      const { loss, gradNorm, lr } = await optimizerStep(
        state,
        config,
        stream,
        tokenizer,
        batchOptions,
        window,
        totalSteps,
        ckptRoot,
      );
      const step = ++state.step;
      lastLoss = loss;
      window.steps++;

      if (step % config.logEverySteps === 0 || step === totalSteps) {
        const now = performance.now();
        const secs = (now - window.t) / 1000;
        const avg = (now - sessionStart) / 1000 / (step - sessionFirstStep);
        const rates = {
          stepsPerSecond: window.steps / secs,
          sequencesPerSecond: window.seqs / secs,
          tokensPerSecond: window.tokens / secs,
        };
        log({ step, epoch: state.cursor.epoch, loss, lr, gradNorm, ...rates });
        emit({
          type: 'step',
          job: 'retriever',
          step,
          totalSteps,
          loss,
          lr,
          gradNorm,
          ...rates,
          etaSeconds: (totalSteps - step) * avg,
        });
        window = { t: now, steps: 0, seqs: 0, tokens: 0 };
      }
      if (config.evalEverySteps && step % config.evalEverySteps === 0 && step < totalSteps) await runEval();
      if (step % config.checkpoint.everySteps === 0 || step === totalSteps) {
        if (step === totalSteps) await runEval();
        await checkpoint();
        lastCheckpointStep = step;
      }
    }
  } finally {
    await stream.return(undefined);
  }

  const exportDir = await exportTrainedModel(out, init, initRaw, encoder, config, digest);
  emit({ type: 'export', path: exportDir });
  encoder.dispose();

  const seconds = (performance.now() - started) / 1000;
  await writeManifest(out, {
    kind: 'train-retriever',
    config: { trainer: config, data, init, totalSteps, backend, ...(staleReuse ? { staleReuse } : {}) },
    ...(options.command ? { command: options.command } : {}),
    formatter: config.formatter,
    seeds: [config.seed],
    timings: { seconds },
    inputs: [data, ...initFiles.map((f) => join(init, f))],
    outputs: [join(exportDir, 'model.safetensors'), join(exportDir, 'onnx', 'model.onnx')],
    notes: [
      `backend ${backend.choice}: ${backend.reason}`,
      ...(resumed ? [`resumed from ${latest}`] : []),
      ...(staleReuse
        ? [`reused a run folder made by other trainer code: ${staleReuse.reasons.join('; ')}`]
        : []),
    ],
  });
  if (Number.isNaN(lastLoss)) lastLoss = lastLoggedLoss(metricsPath) ?? lastLoss;
  const { step, bestEval } = state;
  const result: TrainRunResult = {
    out,
    exportDir,
    steps: step,
    finalLoss: lastLoss,
    ...(bestEval ? { bestEval } : {}),
    resumed,
    alreadyComplete: false,
    seconds,
    ...(staleReuse ? { staleReuse } : {}),
  };
  await writeJsonAtomic(join(out, 'summary.json'), result);
  emit({ type: 'done', steps: step, finalLoss: lastLoss, seconds, out });
  return result;
}
