/**
 * MLM pretraining of a mini backbone (the paper starts from MLM-only checkpoints: gte-
 * multilingual-mlm-base; the mini profile makes its own): a WordPiece vocabulary trained on the
 * corpus (unless a tokenizer is given), a freshly initialised `mini-bert` / `mini-gte` encoder,
 * BERT's 15% / 80-10-10 masking (`maskTokens`), the tied-embedding MLM head (`MlmHead`),
 * cross-entropy over the chosen positions, AdamW with warmup + linear decay, clipping.
 * Each step draws `batchSize` texts uniformly from the corpus (seeded).
 *
 * Cached by digest: the run folder's `summary.json` records a content hash of the config, the
 * corpus files and the tokenizer; a call with the same digest returns it at once
 * (`cached: true`), a different one in the same folder is an error. Outputs in `out`:
 * metrics.jsonl (the loss curve), export/ (HF folder usable as `init` of `trainRetriever`,
 * with tokenizer.json and the sentence-transformers files), mlm_head.safetensors, manifest.json,
 * summary.json. An interrupted run starts over (no mid-run checkpoints: it is minutes long).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  contentHash,
  createRng,
  DataError,
  describeZodIssues,
  hashFile,
  MlmConfig,
  type MlmConfigInput,
  readLines,
  writeFileAtomic,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import { initBackend } from '../backend/init-backend.js';
import { type Tensor, tf } from '../backend/tf.js';
import { miniBackboneSize } from '../encoders/mini-backbone-size.js';
import { createMiniEncoder, miniBackbones } from '../encoders/mini-backbones.js';
import { exportHuggingFace } from '../export/huggingface/export-hugging-face.js';
import type { TrainEventListener } from '../loop/train-events.js';
import { applyAdamW, clipByGlobalNorm, createAdamWState } from '../optim/adamw.js';
import { learningRate } from '../optim/learning-rate.js';
import { writeSafetensors } from '../safetensors/index.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { trainWordPiece } from '../tokenizer/train-word-piece.js';
import { ignoredLabel, maskTokens } from './mask-tokens.js';
import { MlmHead } from './mlm-head.js';

export interface PretrainMlmOptions {
  config: MlmConfig | MlmConfigInput;
  /** Text files: .jsonl (a Passage's title + text, or a `text` field per line) or plain lines. */
  corpus: string | string[];
  /** tokenizer.json; a WordPiece vocabulary of `config.vocabSize` is trained when absent. */
  tokenizer?: string;
  out: string;
  onEvent?: TrainEventListener;
  signal?: AbortSignal;
}

export interface PretrainMlmResult {
  out: string;
  exportDir: string;
  steps: number;
  finalLoss: number;
  cached: boolean;
  digest: string;
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

/** The MLM run folder's digest: config, corpus files and tokenizer by content. */
export async function mlmDigest(config: MlmConfig, corpus: string[], tokenizer?: string): Promise<string> {
  const files = await Promise.all(corpus.map((f) => hashFile(f)));
  const tok = tokenizer ? await hashFile(tokenizer) : null;
  return contentHash({ kind: 'mlm/1', config, files: files.map((f) => f.sha256), tok: tok?.sha256 ?? null });
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
  const digest = await mlmDigest(config, corpus, options.tokenizer);
  const summaryPath = join(out, 'summary.json');
  const exportDir = join(out, 'export');
  if (existsSync(summaryPath)) {
    const prev = JSON.parse(readFileSync(summaryPath, 'utf8')) as PretrainMlmResult;
    if (prev.digest === digest && existsSync(join(exportDir, 'model.safetensors')))
      return { ...prev, out, exportDir, cached: true };
    throw new DataError(
      'this folder holds an MLM run of a different config or corpus; use a new folder',
      out,
    );
  }
  const started = performance.now();
  const backend = await initBackend();
  mkdirSync(out, { recursive: true });

  const texts = await readTexts(corpus, config.maxTexts);
  if (texts.length === 0) throw new DataError('the corpus has no texts', corpus[0]);
  const tokenizer = options.tokenizer
    ? HfTokenizer.fromFile(options.tokenizer)
    : await trainWordPiece(texts, { vocabSize: config.vocabSize, lowercase: true });
  const maskId = tokenizer.tokenToId('[MASK]') ?? tokenizer.tokenToId('<mask>');
  if (maskId === undefined)
    throw new DataError('the tokenizer has no [MASK] / <mask> token', options.tokenizer);
  const specialIds = new Set(
    ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', '<s>', '</s>', '<pad>', '<unk>', '<mask>']
      .map((t) => tokenizer.tokenToId(t))
      .filter((x): x is number => x !== undefined),
  );

  const base = miniBackbones[config.backbone];
  const encoder = createMiniEncoder(config.backbone, {
    vocabSize: tokenizer.vocabSize,
    seed: config.seed,
    overrides: {
      ...miniBackboneSize(config.backbone, { layers: config.layers, hidden: config.hidden }),
      pad_token_id: tokenizer.padId,
    },
  });
  const head = MlmHead.create(config.hidden, tokenizer.vocabSize, config.seed, base.layer_norm_eps);
  const params = new Map([...encoder.params].filter(([, v]) => v.trainable));
  for (const [n, v] of head.params) params.set(n, v);
  const names = [...params.keys()];
  const vars = [...params.values()];
  const optimizer = createAdamWState();
  const rng = createRng(config.seed).fork('mlm');
  const wordEmbeddings = encoder.params.get('embeddings.word_embeddings.weight')!;
  const metricsPath = join(out, 'metrics.jsonl');
  rmSync(metricsPath, { force: true });

  emit({
    type: 'start',
    job: 'mlm',
    out,
    totalSteps: config.steps,
    startStep: 0,
    resumed: false,
    backend: backend.choice,
  });
  let window = { t: performance.now(), steps: 0, seqs: 0, tokens: 0 };
  let lastLoss = Number.NaN;
  try {
    for (let step = 0; step < config.steps; step++) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('MLM pretraining aborted');
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
          etaSeconds: ((config.steps - done) * (now - started)) / 1000 / done,
        });
        window = { t: now, steps: 0, seqs: 0, tokens: 0 };
      }
    }

    const tokPath = join(out, 'tokenizer.json');
    await writeFileAtomic(tokPath, tokenizer.json);
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
    notes: [`backend ${backend.choice}: ${backend.reason}`, `${texts.length} texts`],
  });
  const result: PretrainMlmResult = {
    out,
    exportDir,
    steps: config.steps,
    finalLoss: lastLoss,
    cached: false,
    digest,
  };
  await writeJsonAtomic(summaryPath, result);
  emit({ type: 'done', steps: config.steps, finalLoss: lastLoss, seconds, out });
  return result;
}
