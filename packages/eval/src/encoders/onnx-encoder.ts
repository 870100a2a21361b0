/**
 * Dense encoder for any Hugging Face-style ONNX export (optimum, sentence-transformers, or
 * @dv/train's exporter) run by onnxruntime-node on the CPU, with the model's own
 * `tokenizer.json` loaded by the `tokenizers` binding (the Rust library HF uses).
 *
 * Inputs fed: `input_ids`, `attention_mask`, and `token_type_ids` when the graph has it (all
 * zeros), int64, padded to the longest text of each batch, truncated to `maxLength` tokens.
 * Pooling: `model` uses the graph's `sentence_embedding` output (already pooled as exported);
 * `cls` takes token 0 of `last_hidden_state`; `mean` averages it over non-padding tokens.
 * Rows are L2-normalised when `normalize`, so inner product = cosine.
 * `fromDir` reads pooling and normalisation the way sentence-transformers does (modules.json,
 * its Pooling module's config, a Normalize module; @dv/core `readModelFolderSettings`); options
 * override the folder, and folders that declare nothing get `model` pooling when the graph has
 * `sentence_embedding`, else `cls`, and normalisation on.
 * `precision: 'int8'` loads the folder's int8 graph (`onnx/model_qint8.onnx`, @dv/core
 * `onnxModelFile`; written by @dv/train `exportFolderOnnx` / `dv train onnx --precision int8`):
 * the same model with its Linear weights quantized, faster on the CPU and within int8 noise of
 * float32 (docs/benchmarks.md gives the measured speed and the embedding differences).
 * CLS pooling of a folder with `onnx/model_cls.onnx` (`onnx/model_qint8_cls.onnx` for int8;
 * @dv/core `onnxClsModelFile`, written beside each graph by @dv/train's exporters for CLS-pooled
 * BERT / XLM-R) loads that graph instead (`clsGraph`, default on): its last layer computes position 0 only and it
 * outputs `cls_hidden_state`, the same embeddings for about 20% less work on a 4-layer model,
 * 7% on a 12-layer one (docs/benchmarks.md); the full `onnx/model.onnx` stays the
 * standard graph that sentence-transformers and other tools load.
 * `settings` pins the model and tokenizer by SHA-256, so cached embeddings follow the files.
 * Throughput: a call of more than `batchSize` texts is batched longest first (by characters,
 * as sentence-transformers' `encode`; `lengthSortedOrder`), rows returned in input order. The
 * session runs ORT's full graph optimisation, sequential execution, one inter-op thread,
 * `threads` intra-op threads (default: the cores Node may use), the CPU arena and memory
 * patterns, and intra-op threads that sleep instead of spinning between ops (`spinning`): on
 * the shared 2-core machines this project runs on, spinning pool threads burn the cycles the
 * other threads need (measured: ~0.6x the CPU time and ~2x the speed without spinning under
 * contention, docs/benchmarks.md).
 * onnxruntime-node is an optional dependency, loaded on first use (see internal/onnxruntime.ts).
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
  type OnnxPrecision,
  onnxClsModelFile,
  onnxModelFile,
  type Pooling,
  readModelFolderSettings,
} from '@dv/core';
import type * as Ort from 'onnxruntime-node';
import type { Tokenizer } from 'tokenizers';
import { cpuSessionOptions, loadOnnxRuntime, type OrtModule } from '../internal/onnxruntime.js';
import { l2Normalize } from '../search/exact-top-k.js';
import { lengthSortedOrder } from '../shards/length-sorted-order.js';

/** `model`: the graph's own `sentence_embedding`; else a @dv/core pooling mode over `last_hidden_state`. */
export type OnnxPooling = 'model' | Pooling;

export interface OnnxEncoderOptions {
  modelPath: string;
  tokenizerPath: string;
  pooling?: OnnxPooling;
  normalize?: boolean;
  /** Tokens per text, special tokens included (default 512). */
  maxLength?: number;
  batchSize?: number;
  /** onnxruntime intra-op threads (default: `os.availableParallelism()`). */
  threads?: number;
  /** Let intra-op threads spin-wait between ops (default false: they sleep; see the file comment). */
  spinning?: boolean;
  /** onnxruntime execution providers, preferred first (default: CPU; see ort-execution-providers.ts). */
  executionProviders?: string[];
  formatter?: FormatterSettings;
  name?: string;
  /** Which of the folder's graphs `fromDir` loads (default `fp32`; see the file comment). */
  precision?: OnnxPrecision;
  /** `fromDir` with CLS pooling: load the precision's CLS embedding graph when present (default true; see the file comment). */
  clsGraph?: boolean;
}

export { modelMaxLength };

/**
 * A model's name in summaries and run tags: `onnx:<folder>@<first 8 hex of the model's
 * sha256>`, where <folder> is the model folder (the parent of `onnx/` for the Hugging Face
 * layout `DIR/onnx/model.onnx`). Every HF export used to be `onnx:onnx/model.onnx` (issue 12
 * item 11); the digest also tells apart two folders with the same name.
 */
export function onnxModelName(modelPath: string, modelSha256: string): string {
  const parent = dirname(resolve(modelPath));
  const folder = basename(parent) === 'onnx' ? basename(dirname(parent)) : basename(parent);
  return `onnx:${folder}@${modelSha256.slice(0, 8)}`;
}

/** The session options of the file comment (`cpuSessionOptions`, with the execution providers). Not exported: its type names onnxruntime-node, an optional dependency that consumers may lack. */
function onnxSessionOptions(
  options: Pick<OnnxEncoderOptions, 'threads' | 'spinning' | 'executionProviders'>,
): Ort.InferenceSession.SessionOptions {
  return {
    ...cpuSessionOptions(options),
    ...(options.executionProviders ? { executionProviders: options.executionProviders } : {}),
  };
}

export class OnnxEncoder implements Encoder {
  readonly name: string;
  readonly formatter: FormatterSettings;
  readonly settings: Readonly<Record<string, unknown>>;

  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    readonly dim: number,
    private readonly pooling: OnnxPooling,
    private readonly options: OnnxEncoderOptions,
    digests: { model: string; tokenizer: string },
  ) {
    this.name = options.name ?? onnxModelName(options.modelPath, digests.model);
    this.formatter = options.formatter ?? defaultFormatterSettings;
    this.settings = {
      backend: 'onnxruntime-node',
      modelSha256: digests.model,
      tokenizerSha256: digests.tokenizer,
      pooling,
      normalize: options.normalize ?? true,
      maxLength: options.maxLength ?? 512,
      ...(options.precision === 'int8' ? { precision: 'int8' } : {}),
    };
  }

  static async create(options: OnnxEncoderOptions): Promise<OnnxEncoder> {
    for (const p of [options.modelPath, options.tokenizerPath])
      if (!existsSync(p)) throw new DataError('file not found', p);
    const ort = await loadOnnxRuntime();
    const session = await ort.InferenceSession.create(options.modelPath, onnxSessionOptions(options));
    for (const need of ['input_ids', 'attention_mask'])
      if (!session.inputNames.includes(need))
        throw new DataError(
          `ONNX graph has no "${need}" input (inputs: ${session.inputNames.join(', ')})`,
          options.modelPath,
        );
    const hasSentence = session.outputNames.includes('sentence_embedding');
    const pooling = options.pooling ?? (hasSentence ? 'model' : 'cls');
    if (pooling === 'model' && !hasSentence)
      throw new DataError('pooling "model" needs a "sentence_embedding" output', options.modelPath);
    if (pooling === 'mean' && !session.outputNames.includes('last_hidden_state'))
      throw new DataError(
        `pooling "mean" needs a "last_hidden_state" output (outputs: ${session.outputNames.join(', ')})`,
        options.modelPath,
      );
    let tokenizer: Tokenizer;
    try {
      // Imported here, not at module load: `dv` commands that never encode skip the native binding.
      const { Tokenizer } = await import('tokenizers');
      tokenizer = Tokenizer.fromFile(options.tokenizerPath);
    } catch (err) {
      throw new DataError(`cannot load tokenizer: ${(err as Error).message}`, options.tokenizerPath);
    }
    tokenizer.setTruncation(options.maxLength ?? 512);
    const padToken = ['[PAD]', '<pad>', '<|endoftext|>'].find((t) => tokenizer.tokenToId(t) !== null);
    tokenizer.setPadding(padToken ? { padToken, padId: tokenizer.tokenToId(padToken)! } : {});
    const digests = {
      model: (await hashFile(options.modelPath)).sha256,
      tokenizer: (await hashFile(options.tokenizerPath)).sha256,
    };
    const probe = new OnnxEncoder(ort, session, tokenizer, 0, pooling, options, digests);
    const dim = (await probe.run(['probe'])).length;
    return new OnnxEncoder(ort, session, tokenizer, dim, pooling, options, digests);
  }

  /**
   * A model folder: `model.onnx` (or `onnx/model.onnx`; `onnx/model_qint8.onnx` for `precision:
   * 'int8'`) and `tokenizer.json`; pooling and
   * normalisation as the folder's sentence-transformers modules say, unless given (see the file
   * comment); `maxLength`, when not given, from @dv/core `modelMaxLength` (at most 512).
   */
  static async fromDir(dir: string, options: Partial<OnnxEncoderOptions> = {}): Promise<OnnxEncoder> {
    const int8 = options.precision === 'int8';
    const folder = readModelFolderSettings(dir);
    const pooling = options.pooling ?? folder.pooling;
    const cls =
      pooling === 'cls' && (options.clsGraph ?? true)
        ? [join(dir, onnxClsModelFile(options.precision ?? 'fp32'))]
        : [];
    const candidates = int8
      ? [...cls, join(dir, onnxModelFile('int8'))]
      : [...cls, join(dir, 'model.onnx'), join(dir, onnxModelFile('fp32'))];
    const modelPath = candidates.find((p) => existsSync(p));
    if (!modelPath)
      throw new DataError(
        int8
          ? `no ${onnxModelFile('int8')} in the model folder (write it with: dv train onnx --model ${dir} --precision int8)`
          : 'no model.onnx (or onnx/model.onnx) in the model folder',
        dir,
      );
    return OnnxEncoder.create({
      ...options,
      modelPath,
      tokenizerPath: join(dir, 'tokenizer.json'),
      pooling,
      normalize: options.normalize ?? folder.normalize,
      maxLength: options.maxLength ?? modelMaxLength(dir),
    });
  }

  /** Pooled (and normalised) rows of one batch, concatenated. */
  private async run(texts: readonly string[]): Promise<Float32Array> {
    const enc = await this.tokenizer.encodeBatch([...texts]);
    const b = enc.length;
    const len = enc[0]?.getIds().length ?? 0;
    const ids = new BigInt64Array(b * len);
    const mask = new BigInt64Array(b * len);
    // int64 little-endian: ids and mask values are small non-negative integers, so the low
    // 32-bit word holds the value and the high word stays 0 (no BigInt per token).
    const ids32 = new Int32Array(ids.buffer);
    const mask32 = new Int32Array(mask.buffer);
    enc.forEach((e, i) => {
      const id = e.getIds();
      const m = e.getAttentionMask();
      for (let t = 0; t < len; t++) {
        ids32[2 * (i * len + t)] = id[t]!;
        mask32[2 * (i * len + t)] = m[t]!;
      }
    });
    const ort = this.ort;
    const feeds: Record<string, Ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [b, len]),
      attention_mask: new ort.Tensor('int64', mask, [b, len]),
    };
    if (this.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(b * len), [b, len]);
    let out: Float32Array;
    let dim: number;
    if (this.pooling === 'model') {
      const r = await this.session.run(feeds, ['sentence_embedding']);
      const t = r.sentence_embedding!;
      dim = t.dims[1]!;
      out = Float32Array.from(t.data as Float32Array);
    } else if (this.pooling === 'cls' && this.session.outputNames.includes('cls_hidden_state')) {
      // The CLS embedding graph: position 0 of the last hidden state, [B, H].
      const t = (await this.session.run(feeds, ['cls_hidden_state'])).cls_hidden_state!;
      dim = t.dims[1]!;
      out = Float32Array.from(t.data as Float32Array);
    } else {
      const name = this.session.outputNames.includes('last_hidden_state')
        ? 'last_hidden_state'
        : this.session.outputNames[0]!;
      const t = (await this.session.run(feeds, [name]))[name]!;
      const [, seq, hidden] = t.dims as [number, number, number];
      const h = t.data as Float32Array;
      dim = hidden;
      out = new Float32Array(b * hidden);
      for (let i = 0; i < b; i++) {
        if (this.pooling === 'cls') {
          out.set(h.subarray(i * seq * hidden, i * seq * hidden + hidden), i * hidden);
          continue;
        }
        let n = 0;
        for (let s = 0; s < seq; s++) {
          if (mask32[2 * (i * len + s)] === 0) continue;
          n++;
          const base = (i * seq + s) * hidden;
          for (let j = 0; j < hidden; j++) out[i * hidden + j]! += h[base + j]!;
        }
        for (let j = 0; j < hidden; j++) out[i * hidden + j]! /= Math.max(n, 1);
      }
    }
    if (this.options.normalize ?? true) l2Normalize(out, dim);
    return out;
  }

  private async matrix(texts: readonly string[]): Promise<Float32Array> {
    const batchSize = this.options.batchSize ?? 32;
    if (texts.length <= batchSize)
      return encodeInBatches(texts, this.dim, batchSize, (batch) => this.run(batch));
    const order = lengthSortedOrder(
      texts.map((t) => t.length),
      texts.length,
    );
    const sorted = await encodeInBatches(
      order.map((k) => texts[k]!),
      this.dim,
      batchSize,
      (batch) => this.run(batch),
    );
    const dim = this.dim;
    const out = new Float32Array(texts.length * dim);
    for (let p = 0; p < order.length; p++) out.set(sorted.subarray(p * dim, (p + 1) * dim), order[p]! * dim);
    return out;
  }

  encodeQueries(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  encodeDocuments(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
