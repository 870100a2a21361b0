/**
 * Dense encoder (@dv/core `Encoder`) for models trained with @dv/train, run by tfjs on the
 * backend `initBackend` selects (native TensorFlow > wasm > pure JS; `backend` option or
 * `DV_TF_BACKEND`). It lives here, next to the checkpoint layout it reads; @dv/eval ranks with
 * it through its model registry (apps/pipeline registers `tfjs:DIR`), so @dv/eval itself never
 * needs TensorFlow.
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
 * Pooling and normalisation as sentence-transformers reads the folder (@dv/core
 * `readModelFolderSettings`: modules.json, its Pooling config, a Normalize module); options
 * override; a folder that declares nothing (a checkpoint) gets `cls` (the ONNX encoder's fallback
 * and the paper's Arctic-Embed recipe) and normalisation on (inner product = cosine).
 * `settings` pins config, weights and tokenizer by SHA-256. The tfjs engine is not part of it:
 * backends agree to float rounding (~1e-6), so they share cached embeddings; `backend` reports it.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  DataError,
  defaultFormatterSettings,
  type Encoder,
  encodeInBatches,
  type FormatterSettings,
  hashFile,
  modelMaxLength,
  type Pooling,
  readModelFolderSettings,
} from '@dv/core';
import { type BackendChoice, type BackendInfo, initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { TransformerEncoder, toForwardInputs } from './transformer-encoder.js';

export interface TfjsEncoderOptions {
  /** tfjs backend (default: `DV_TF_BACKEND`, else the fastest that loads). */
  backend?: BackendChoice | 'auto';
  pooling?: Pooling;
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

/** What `fromDir` resolved and loaded. */
interface Loaded {
  model: TransformerEncoder;
  tokenizer: HfTokenizer;
  backend: BackendInfo;
  pooling: Pooling;
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

    const backend = await initBackend(options.backend ? { backend: options.backend } : {});
    let tokenizer: HfTokenizer;
    try {
      tokenizer = HfTokenizer.fromFile(tokenizerPath);
    } catch (err) {
      throw new DataError(`cannot load tokenizer: ${(err as Error).message}`, tokenizerPath);
    }
    const sha256 = {
      config: (await hashFile(configPath)).sha256,
      weights: (await hashFile(weightsPath)).sha256,
      tokenizer: (await hashFile(tokenizerPath)).sha256,
    };
    const folder = readModelFolderSettings(dir);
    return new TfjsEncoder({
      model: TransformerEncoder.fromPretrained(dir),
      tokenizer,
      backend,
      pooling: options.pooling ?? folder.pooling ?? 'cls',
      normalize: options.normalize ?? folder.normalize ?? true,
      maxLength: options.maxLength ?? modelMaxLength(dir),
      batchSize,
      name: options.name ?? `tfjs:${basename(resolve(dir))}`,
      formatter: options.formatter ?? defaultFormatterSettings,
      sha256,
    });
  }

  /** Pooled (and normalised) rows of one batch. */
  private async run(texts: readonly string[]): Promise<Float32Array> {
    const { model, tokenizer, maxLength, pooling, normalize } = this.loaded;
    const batch = await tokenizer.encode(texts, { maxLength });
    // Token types stay zero, as the ONNX encoder feeds them.
    const rows = tf.tidy(() =>
      model.embed(
        toForwardInputs({ inputIds: batch.inputIds, attentionMask: batch.attentionMask }),
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
