/**
 * MLM pretraining of a mini backbone (the paper starts from MLM-only checkpoints: gte-
 * multilingual-mlm-base; the mini profile makes its own): a WordPiece vocabulary trained on the
 * corpus (unless a tokenizer is given), a freshly initialised `mini-bert` / `mini-gte` encoder,
 * BERT's 15% / 80-10-10 masking (`maskTokens`), the tied-embedding MLM head (`MlmHead`),
 * cross-entropy over the chosen positions, AdamW with warmup + linear decay, clipping.
 * Each step draws `batchSize` texts uniformly from the corpus (seeded).
 *
 * Cached by key (core's keyed-resume contract, `mlmKey`: kind 'mlm-run', the config as slice,
 * the corpus files and the tokenizer by sha256, and the code digest of what MLM pretraining runs
 * in @dv/train, `MLM_CODE`): the run folder's `summary.json` records the key and its parts; a
 * call with the same key returns it at once (`cached: true`), a different one in the same folder
 * is an error that says which parts changed (`staleReasons`). Outputs in `out`:
 * metrics.jsonl (the loss curve), export/ (HF folder usable as `init` of `trainRetriever`,
 * with tokenizer.json and the sentence-transformers files), mlm_head.safetensors, manifest.json,
 * summary.json, and checkpoints/ while it runs.
 *
 * Checkpoints and resume (issue 25), with the trainer's modules (`saveCheckpoint`,
 * `loadNewestIntactCheckpoint`, `truncateMetrics`): every `config.checkpoint.everySteps` steps
 * and on abort, checkpoints/step-N holds the encoder, the MLM head (`tensors.safetensors`), the
 * AdamW moments of both, and the RNG state (it draws the batch texts, the masks and the dropout
 * seeds, so it is the data cursor too), with a digest index. The vocabulary is written to
 * tokenizer.json before the first step and read back on resume. A rerun in the same folder
 * continues from the newest intact checkpoint (a corrupt newer one is moved aside, with a
 * 'note' event), drops metrics past it, and follows the uninterrupted loss curve.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CacheKey,
  CacheKeyParts,
  type CodeRef,
  cacheKey,
  codeDigests,
  createRng,
  DataError,
  describeZodIssues,
  hashFile,
  MlmConfig,
  readLines,
  staleReasons,
  writeFileAtomic,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import type { z } from 'zod';
import { initBackend } from '../backend/init-backend.js';
import { type Tensor, tf } from '../backend/tf.js';
import {
  checkpointDir,
  corruptCheckpointNote,
  loadNewestIntactCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
} from '../checkpoint/checkpoint.js';
import { miniBackboneSize } from '../encoders/mini-backbone-size.js';
import { createMiniEncoder, miniBackbones } from '../encoders/mini-backbones.js';
import { exportHuggingFace } from '../export/huggingface/export-hugging-face.js';
import type { TrainEventListener } from '../loop/train-events.js';
import { truncateMetrics } from '../loop/truncate-metrics.js';
import { applyAdamW, clipByGlobalNorm, createAdamWState } from '../optim/adamw.js';
import { learningRate } from '../optim/learning-rate.js';
import { writeSafetensors } from '../safetensors/index.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { trainWordPiece } from '../tokenizer/train-word-piece.js';
import { ignoredLabel, maskTokens } from './mask-tokens.js';
import { MlmHead } from './mlm-head.js';

export interface PretrainMlmOptions {
  config: MlmConfig | z.input<typeof MlmConfig>;
  /** Text files: .jsonl (a Passage's title + text, or a `text` field per line) or plain lines. */
  corpus: string | string[];
  /** tokenizer.json; a WordPiece vocabulary of `config.vocabSize` is trained when absent. */
  tokenizer?: string;
  out: string;
  onEvent?: TrainEventListener;
  /** Aborting checkpoints the current step and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The key's code part (label -> digest) instead of the digest of `MLM_CODE` taken now: for
   * tests and tools that check what changed code does to a cached run.
   */
  code?: Readonly<Record<string, string>>;
}

export interface PretrainMlmResult {
  out: string;
  exportDir: string;
  steps: number;
  finalLoss: number;
  cached: boolean;
  /** The run's cache key (`mlmKey`). */
  digest: string;
  /** The key's parts: what a later call compares, part by part. */
  keyParts?: CacheKeyParts;
  /** This call continued from a checkpoint (at that step). */
  resumedFrom?: number;
}

/** Control characters no text corpus holds (tab, CR and form feed excepted). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const BINARY_BYTE = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

async function readTexts(files: string[], max: number | null): Promise<string[]> {
  const texts: string[] = [];
  for (const file of files) {
    const jsonl = /\.jsonl(\.gz)?$/.test(file);
    for await (const line of readLines(file)) {
      if (max !== null && texts.length >= max) return texts;
      if (!line.text.trim()) continue;
      if (!jsonl) {
        // a binary file that happens to decode as UTF-8 (NULs, control bytes) is not text either
        const ctl = BINARY_BYTE.exec(line.text);
        if (ctl)
          throw new DataError(
            `binary data (byte 0x${ctl[0].charCodeAt(0).toString(16).padStart(2, '0')}): an MLM corpus is text, a .jsonl of {"text"} rows or plain lines`,
            file,
            line.number,
          );
        texts.push(line.text);
        continue;
      }
      let row: { title?: unknown; text?: unknown };
      try {
        row = JSON.parse(line.text);
      } catch (err) {
        throw new DataError(`invalid JSON: ${(err as Error).message}`, file, line.number);
      }
      if (typeof row?.text !== 'string')
        throw new DataError('expected a "text" string field', file, line.number);
      texts.push(typeof row.title === 'string' && row.title ? `${row.title} ${row.text}` : row.text);
    }
  }
  return texts;
}

/**
 * What MLM pretraining runs inside @dv/train: the relative-import closure of this file
 * (architectures, encoders, tokenizer, optimizer, checkpoints, export) and the native kernels,
 * not the fine-tuning loop (only the two `src/loop` files it imports), with @dv/core whole.
 */
export const MLM_CODE: CodeRef = {
  package: '@dv/train',
  label: '@dv/train:mlm',
  entries: ['src/mlm/pretrain-mlm.ts'],
  folders: ['native'],
};

/**
 * The MLM run folder's key: kind 'mlm-run', the config as slice, the corpus files and the
 * tokenizer by sha256 as inputs, the code digest of `MLM_CODE` (or `code` as given). The
 * checkpoint cadence is left out: it changes no result.
 */
export async function mlmKey(
  config: MlmConfig,
  corpus: string[],
  tokenizer?: string,
  code?: Readonly<Record<string, string>>,
): Promise<CacheKey> {
  const files = await Promise.all(corpus.map((f) => hashFile(f)));
  const tok = tokenizer ? await hashFile(tokenizer) : null;
  const { checkpoint: _cadence, ...identity } = config;
  const inputs: Record<string, string> = {};
  for (const [i, f] of files.entries()) inputs[`corpus.${i}`] = f.sha256;
  if (tok) inputs.tokenizer = tok.sha256;
  let codePart = code;
  if (!codePart) {
    const taken: Record<string, string> = {};
    for (const [label, d] of Object.entries(codeDigests([MLM_CODE], import.meta.url)))
      taken[label] = d.digest;
    codePart = taken;
  }
  return cacheKey({ kind: 'mlm-run', slice: identity, inputs, code: codePart });
}

/** The MLM run folder's digest: the key of `mlmKey` (names the CLI's cached run folders). */
export async function mlmDigest(
  config: MlmConfig,
  corpus: string[],
  tokenizer?: string,
  code?: Readonly<Record<string, string>>,
): Promise<string> {
  return (await mlmKey(config, corpus, tokenizer, code)).key;
}

/** Why a folder's recorded key is not `current`: the changed parts, or that it predates parts. */
function whyStale(recorded: unknown, current: CacheKey): string {
  const parsed = CacheKeyParts.safeParse(recorded);
  return staleReasons(parsed.success ? parsed.data : undefined, current.parts).join('; ');
}

/** The loss of the last metrics record (a resume whose checkpoint was the last step trains none). */
function lastLoggedLoss(metricsPath: string): number {
  if (!existsSync(metricsPath)) return Number.NaN;
  const last = readFileSync(metricsPath, 'utf8').trim().split('\n').at(-1);
  return last ? ((JSON.parse(last) as { loss?: number }).loss ?? Number.NaN) : Number.NaN;
}

export async function pretrainMlm(options: PretrainMlmOptions): Promise<PretrainMlmResult> {
  const parsed = MlmConfig.safeParse(options.config);
  if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), 'mlm config');
  const config = parsed.data;
  const corpus = Array.isArray(options.corpus) ? options.corpus : [options.corpus];
  for (const f of corpus) if (!existsSync(f)) throw new DataError('corpus file is missing', f);
  if (options.tokenizer && !existsSync(options.tokenizer))
    throw new DataError('tokenizer is missing', options.tokenizer);
  const { out } = options;
  const emit = options.onEvent ?? (() => {});
  const key = await mlmKey(config, corpus, options.tokenizer, options.code);
  const digest = key.key;
  const summaryPath = join(out, 'summary.json');
  const exportDir = join(out, 'export');
  if (existsSync(summaryPath)) {
    const prev = JSON.parse(readFileSync(summaryPath, 'utf8')) as PretrainMlmResult;
    if (prev.digest === digest && existsSync(join(exportDir, 'model.safetensors')))
      return { ...prev, out, exportDir, cached: true };
    throw new DataError(
      prev.digest === digest
        ? 'this folder holds an MLM run with this key but no export/model.safetensors; use a new folder'
        : `this folder holds an MLM run made by other code, config or corpus (${whyStale(prev.keyParts, key)}); use a new folder`,
      out,
    );
  }
  const started = performance.now();
  const backend = await initBackend();
  mkdirSync(out, { recursive: true });

  const texts = await readTexts(corpus, config.maxTexts);
  if (texts.length === 0) throw new DataError('the corpus has no texts', corpus[0]);
  const ckptRoot = join(out, 'checkpoints');
  const tokPath = join(out, 'tokenizer.json');
  const ck = loadNewestIntactCheckpoint(ckptRoot, (c) =>
    emit({ type: 'note', message: corruptCheckpointNote(c) }),
  );
  if (ck && ck.extra.digest !== digest) {
    ck.encoder.dispose();
    throw new DataError(
      'this folder holds an unfinished MLM run of a different config or corpus; use a new folder',
      out,
    );
  }
  // The vocabulary the checkpoints were trained with (a resume must not retrain it).
  const tokenizer =
    ck && existsSync(tokPath)
      ? HfTokenizer.fromFile(tokPath)
      : options.tokenizer
        ? HfTokenizer.fromFile(options.tokenizer)
        : await trainWordPiece(texts, { vocabSize: config.vocabSize, lowercase: true });
  if (!ck) await writeFileAtomic(tokPath, tokenizer.json);
  const maskId = tokenizer.tokenToId('[MASK]') ?? tokenizer.tokenToId('<mask>');
  if (maskId === undefined)
    throw new DataError('the tokenizer has no [MASK] / <mask> token', options.tokenizer);
  const specialIds = new Set(
    ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', '<s>', '</s>', '<pad>', '<unk>', '<mask>']
      .map((t) => tokenizer.tokenToId(t))
      .filter((x): x is number => x !== undefined),
  );

  const base = miniBackbones[config.backbone];
  const encoder =
    ck?.encoder ??
    createMiniEncoder(config.backbone, {
      vocabSize: tokenizer.vocabSize,
      seed: config.seed,
      overrides: {
        ...miniBackboneSize(config.backbone, { layers: config.layers, hidden: config.hidden }),
        pad_token_id: tokenizer.padId,
      },
    });
  const head = MlmHead.create(config.hidden, tokenizer.vocabSize, config.seed, base.layer_norm_eps);
  if (ck)
    for (const [name, v] of head.params) {
      const saved = ck.tensors.get(name);
      if (!saved) throw new DataError(`the checkpoint has no MLM head tensor ${name}`, ck.path);
      const t = tf.tensor(saved.data, saved.shape, 'float32');
      v.assign(t);
      t.dispose();
    }
  const params = new Map([...encoder.params].filter(([, v]) => v.trainable));
  for (const [n, v] of head.params) params.set(n, v);
  const names = [...params.keys()];
  const vars = [...params.values()];
  const optimizer = ck?.optimizer ?? createAdamWState();
  const rng = ck?.rng ?? createRng(config.seed).fork('mlm');
  const startStep = ck?.step ?? 0;
  const wordEmbeddings = encoder.params.get('embeddings.word_embeddings.weight')!;
  const metricsPath = join(out, 'metrics.jsonl');
  if (ck) await truncateMetrics(metricsPath, startStep);
  else rmSync(metricsPath, { force: true });
  const checkpoint = async (step: number) => {
    const path = checkpointDir(ckptRoot, step);
    await saveCheckpoint(path, { encoder, optimizer, step, rng, tensors: head.params, extra: { digest } });
    pruneCheckpoints(ckptRoot, config.checkpoint.keepLast);
    emit({ type: 'checkpoint', step, path });
  };

  emit({
    type: 'start',
    job: 'mlm',
    out,
    totalSteps: config.steps,
    startStep,
    resumed: ck !== undefined,
    backend: backend.choice,
  });
  let window = { t: performance.now(), steps: 0, seqs: 0, tokens: 0 };
  let lastLoss = Number.NaN;
  let lastCheckpoint = startStep;
  try {
    for (let step = startStep; step < config.steps; step++) {
      if (options.signal?.aborted) {
        if (lastCheckpoint !== step) await checkpoint(step);
        throw options.signal.reason ?? new Error('MLM pretraining aborted');
      }
      const batchTexts = Array.from({ length: config.batchSize }, () => texts[rng.int(texts.length)]!);
      const enc = await tokenizer.encode(batchTexts, { maxLength: config.maxLength });
      const masked = maskTokens(
        enc.inputIds,
        enc.attentionMask,
        { ...config, maskId, vocabSize: tokenizer.vocabSize, specialIds },
        rng,
      );
      const positions: number[] = [];
      const labels: number[] = [];
      const T = masked.inputIds[0]!.length;
      masked.labels.forEach((row, r) => {
        row.forEach((l, t) => {
          if (l !== ignoredLabel) {
            positions.push(r * T + t);
            labels.push(l);
          }
        });
      });
      const dropoutSeed = rng.nextUint32() | 0;
      const inputs = {
        inputIds: tf.tensor2d(masked.inputIds, undefined, 'int32'),
        attentionMask: tf.tensor2d(enc.attentionMask, undefined, 'int32'),
        tokenTypeIds: tf.tensor2d(enc.tokenTypeIds, undefined, 'int32'),
      };
      const posT = tf.tensor1d(positions, 'int32');
      const oneHot = tf.oneHot(tf.tensor1d(labels, 'int32'), tokenizer.vocabSize);
      const { value, grads } = tf.variableGrads(() => {
        const hidden = encoder.forward(inputs, { training: { rng: createRng(dropoutSeed) } });
        const flat = tf.reshape(hidden, [-1, config.hidden]);
        const logits = head.logits(tf.gather(flat, posT), wordEmbeddings);
        return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), oneHot), 1))) as tf.Scalar;
      }, vars);
      tf.dispose([inputs.inputIds, inputs.attentionMask, inputs.tokenTypeIds, posT, oneHot]);
      const loss = value.dataSync()[0]!;
      value.dispose();
      const byName = new Map<string, Tensor>(names.map((n, i) => [n, grads[vars[i]!.name]!]));
      const clipped = clipByGlobalNorm(byName, config.optimizer.gradClipNorm ?? Number.POSITIVE_INFINITY);
      tf.dispose([...byName.values()]);
      if (!Number.isFinite(loss) || !Number.isFinite(clipped.norm)) {
        tf.dispose([...clipped.grads.values()]);
        throw new Error(
          `MLM pretraining diverged at step ${step + 1}: loss ${loss}, gradient norm ${clipped.norm}`,
        );
      }
      const lr = learningRate(step, config.steps, config.optimizer.lr, config.schedule);
      applyAdamW(params, clipped.grads, optimizer, lr, config.optimizer);
      tf.dispose([...clipped.grads.values()]);
      lastLoss = loss;
      window.steps++;
      window.seqs += batchTexts.length;
      for (const m of enc.attentionMask) for (const x of m) window.tokens += x;
      const done = step + 1;
      if (done % config.logEverySteps === 0 || done === config.steps) {
        const now = performance.now();
        const secs = (now - window.t) / 1000;
        const rates = {
          stepsPerSecond: window.steps / secs,
          sequencesPerSecond: window.seqs / secs,
          tokensPerSecond: window.tokens / secs,
        };
        appendFileSync(
          metricsPath,
          `${JSON.stringify({ step: done, loss, lr, gradNorm: clipped.norm, ...rates })}\n`,
        );
        emit({
          type: 'step',
          job: 'mlm',
          step: done,
          totalSteps: config.steps,
          loss,
          lr,
          gradNorm: clipped.norm,
          ...rates,
          etaSeconds: ((config.steps - done) * (now - started)) / 1000 / (done - startStep),
        });
        window = { t: now, steps: 0, seqs: 0, tokens: 0 };
      }
      if (done % config.checkpoint.everySteps === 0 && done < config.steps) {
        await checkpoint(done);
        lastCheckpoint = done;
      }
    }
    const tmp = join(out, `.export.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    await exportHuggingFace(tmp, {
      config: encoder.config,
      weights: encoder.toWeights(),
      tokenizerJson: tokPath,
      pooling: 'cls',
      normalize: true,
      maxSeqLength: 512,
      metadata: { dv_mlm_digest: digest },
    });
    rmSync(exportDir, { recursive: true, force: true });
    renameSync(tmp, exportDir);
    emit({ type: 'export', path: exportDir });
    writeSafetensors(
      join(out, 'mlm_head.safetensors'),
      new Map(
        [...head.params].map(([n, v]) => [
          n,
          { dtype: 'F32' as const, shape: [...v.shape], data: v.dataSync() as Float32Array },
        ]),
      ),
      { format: 'pt' },
    );
  } finally {
    encoder.dispose();
    head.dispose();
    for (const s of optimizer.slots.values()) tf.dispose([s.m, s.v]);
  }
  const seconds = (performance.now() - started) / 1000;
  await writeManifest(out, {
    kind: 'train-mlm',
    config: { mlm: config, corpus, tokenizer: options.tokenizer ?? null, backend },
    seeds: [config.seed],
    timings: { seconds },
    inputs: [...corpus, ...(options.tokenizer ? [options.tokenizer] : [])],
    outputs: [join(exportDir, 'model.safetensors'), join(exportDir, 'tokenizer.json')],
    notes: [
      `backend ${backend.choice}: ${backend.reason}`,
      `${texts.length} texts`,
      ...(ck ? [`resumed from ${ck.path}`] : []),
    ],
  });
  if (Number.isNaN(lastLoss)) lastLoss = lastLoggedLoss(metricsPath);
  const result: PretrainMlmResult = {
    out,
    exportDir,
    steps: config.steps,
    finalLoss: lastLoss,
    cached: false,
    digest,
    keyParts: key.parts,
    ...(ck ? { resumedFrom: ck.step } : {}),
  };
  await writeJsonAtomic(summaryPath, result);
  emit({ type: 'done', steps: config.steps, finalLoss: lastLoss, seconds, out });
  return result;
}
