/**
 * Dense encoder for models trained with @dv/train, run by tfjs on the backend @dv/train's
 * `initBackend` selects (native TensorFlow > wasm > pure JS; `backend` option or
 * `DV_TF_BACKEND`). @dv/train (and with it tfjs and the native binding) is imported when an
 * encoder is created, never when @dv/eval is imported.
 *
 * Folders it loads (`TfjsEncoder.fromDir`):
 * - a Hugging Face / sentence-transformers folder as `exportHuggingFace` writes it:
 *   `config.json`, `model.safetensors`, `tokenizer.json`, `1_Pooling/config.json`,
 *   `modules.json`, `config_sentence_transformers.json`, `tokenizer_config.json`;
 * - a @dv/train checkpoint (`saveCheckpoint`: `config.json` + `model.safetensors` +
 *   `trainer_state.json`, optimiser state ignored). A checkpoint carries no tokenizer and no
 *   pooling metadata: `tokenizer.json` is taken from the folder (`dv train init` puts it there),
 *   else from its parent (the run folder holding `step-NNNNNN/` checkpoints), else
 *   `tokenizerPath` must name it.
 *
 * Exactly as `OnnxEncoder`: texts arrive formatted by the shared formatter (`formatter` holds
 * the per-model prompts); token ids from the model's `tokenizer.json`, padded to the longest text
 * of each batch and truncated to `maxLength` (default `modelMaxLength(dir)`: tokenizer_config's
 * `model_max_length`, else the position table, at most 512); token type ids all zero.
 * Pooling: `cls` or `mean` (masked), default from `1_Pooling/config.json`, else `cls` (the
 * ONNX encoder's fallback and the paper's Arctic-Embed recipe). Normalisation: default true
 * (inner product = cosine), false only when the folder's sentence-transformers metadata says
 * dot-product similarity without a Normalize module.
 * `settings` pins config, weights and tokenizer by SHA-256. The tfjs engine is not part of it:
 * backends agree to float rounding (~1e-6), so they share cached embeddings; `backend` reports it.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DataError, defaultFormatterSettings, type FormatterSettings, hashFile } from '@dv/core';
import type { BackendChoice, BackendInfo, HfTokenizer, TransformerEncoder } from '@dv/train';
import { encodeInBatches, readJsonIfPresent } from '../internal/model-folder.js';
import type { Encoder } from './encoder.js';
import { modelMaxLength } from './onnx-encoder.js';

export type TfjsPooling = 'cls' | 'mean';

export interface TfjsEncoderOptions {
  /** tfjs backend (default: `DV_TF_BACKEND`, else the fastest that loads). */
  backend?: BackendChoice | 'auto';
  pooling?: TfjsPooling;
  normalize?: boolean;
  /** Tokens per text, special tokens included (default: what the folder declares, at most 512). */
  maxLength?: number;
  /** Texts per forward pass (default 32). */
  batchSize?: number;
  /** `tokenizer.json` to use instead of the folder's (or its parent's). */
  tokenizerPath?: string;
  formatter?: FormatterSettings;
  name?: string;
}

/** Pooling from a sentence-transformers `1_Pooling/config.json`, if the folder has one. */
function folderPooling(dir: string): TfjsPooling | undefined {
  const path = join(dir, '1_Pooling', 'config.json');
  const c = readJsonIfPresent(path);
  if (!c) return undefined;
  // sentence-transformers <= 5 writes one flag per mode; 6 writes `pooling_mode: "cls"`.
  if (c.pooling_mode_cls_token === true || c.pooling_mode === 'cls') return 'cls';
  if (c.pooling_mode_mean_tokens === true || c.pooling_mode === 'mean') return 'mean';
  throw new DataError('only cls and mean pooling are supported by the tfjs encoder', path);
}

/** Normalisation as the sentence-transformers metadata says (see the file comment). */
function folderNormalize(dir: string): boolean {
  const modules = readJsonIfPresent(join(dir, 'modules.json'));
  if (Array.isArray(modules) && modules.some((m) => String(m?.type).endsWith('.Normalize'))) return true;
  const st = readJsonIfPresent(join(dir, 'config_sentence_transformers.json'));
  const sim = st?.similarity_fn_name;
  return !(sim === 'dot' || sim === 'dot_product');
}

/** What `fromDir` resolved and loaded. */
interface Loaded {
  train: typeof import('@dv/train');
  model: TransformerEncoder;
  tokenizer: HfTokenizer;
  backend: BackendInfo;
  pooling: TfjsPooling;
  normalize: boolean;
  maxLength: number;
  batchSize: number;
  name: string;
  formatter: FormatterSettings;
  sha256: { config: string; weights: string; tokenizer: string };
}

export class TfjsEncoder implements Encoder {
  readonly name: string;
  readonly formatter: FormatterSettings;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly dim: number;
  /** The tfjs backend in use and why it was chosen. */
  readonly backend: BackendInfo;

  private constructor(private readonly loaded: Loaded) {
    this.name = loaded.name;
    this.formatter = loaded.formatter;
    this.backend = loaded.backend;
    this.dim = loaded.model.config.hidden_size;
    this.settings = {
      backend: 'tfjs',
      configSha256: loaded.sha256.config,
      weightsSha256: loaded.sha256.weights,
      tokenizerSha256: loaded.sha256.tokenizer,
      pooling: loaded.pooling,
      normalize: loaded.normalize,
      maxLength: loaded.maxLength,
    };
  }

  /** Loads a model folder or checkpoint (see the file comment). */
  static async fromDir(dir: string, options: TfjsEncoderOptions = {}): Promise<TfjsEncoder> {
    if (!existsSync(dir)) throw new DataError('model folder not found', dir);
    const configPath = join(dir, 'config.json');
    const weightsPath = join(dir, 'model.safetensors');
    for (const p of [configPath, weightsPath])
      if (!existsSync(p))
        throw new DataError(
          `${basename(p)} is missing: a tfjs model folder is an HF export or a @dv/train checkpoint`,
          p,
        );
    const tokenizerPath =
      options.tokenizerPath ??
      [join(dir, 'tokenizer.json'), join(dirname(resolve(dir)), 'tokenizer.json')].find((p) => existsSync(p));
    if (!tokenizerPath)
      throw new DataError('no tokenizer.json in the folder or its parent; pass tokenizerPath', dir);
    if (!existsSync(tokenizerPath)) throw new DataError('file not found', tokenizerPath);
    const batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new Error(`batchSize must be a positive integer, got ${batchSize}`);

    const train = await import('@dv/train');
    const backend = await train.initBackend(options.backend ? { backend: options.backend } : {});
    let tokenizer: HfTokenizer;
    try {
      tokenizer = train.HfTokenizer.fromFile(tokenizerPath);
    } catch (err) {
      throw new DataError(`cannot load tokenizer: ${(err as Error).message}`, tokenizerPath);
    }
    const sha256 = {
      config: (await hashFile(configPath)).sha256,
      weights: (await hashFile(weightsPath)).sha256,
      tokenizer: (await hashFile(tokenizerPath)).sha256,
    };
    return new TfjsEncoder({
      train,
      model: train.TransformerEncoder.fromPretrained(dir),
      tokenizer,
      backend,
      pooling: options.pooling ?? folderPooling(dir) ?? 'cls',
      normalize: options.normalize ?? folderNormalize(dir),
      maxLength: options.maxLength ?? modelMaxLength(dir),
      batchSize,
      name: options.name ?? `tfjs:${basename(resolve(dir))}`,
      formatter: options.formatter ?? defaultFormatterSettings,
      sha256,
    });
  }

  /** Pooled (and normalised) rows of one batch. */
  private async run(texts: readonly string[]): Promise<Float32Array> {
    const { train, model, tokenizer, maxLength, pooling, normalize } = this.loaded;
    const batch = await tokenizer.encode(texts, { maxLength });
    // Token types stay zero, as the ONNX encoder feeds them.
    const rows = train.tf.tidy(() =>
      model.embed(
        train.toForwardInputs({ inputIds: batch.inputIds, attentionMask: batch.attentionMask }),
        pooling,
        normalize,
      ),
    );
    try {
      return Float32Array.from((await rows.data()) as Float32Array);
    } finally {
      rows.dispose();
    }
  }

  private matrix(texts: readonly string[]): Promise<Float32Array> {
    return encodeInBatches(texts, this.dim, this.loaded.batchSize, (batch) => this.run(batch));
  }

  encodeQueries(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  encodeDocuments(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  /** Frees the model's tensors. */
  async close(): Promise<void> {
    this.loaded.model.dispose();
  }
}
