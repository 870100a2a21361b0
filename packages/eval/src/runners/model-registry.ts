/**
 * Model specs as the CLI takes them (`--model SPEC`), resolved through a registry of prefixes
 * to rankers. Built in:
 *   bm25[:K1,B]          the lexical baseline (default k1 0.9, b 0.4)
 *   openai:MODEL         an OpenAI-compatible embeddings endpoint (OPENAI_BASE_URL,
 *                        OPENAI_API_KEY from the environment); vectors cached per text
 *   onnx:DIR             an ONNX model folder (model.onnx + tokenizer.json; `precision: 'int8'`
 *                        runs its onnx/model_qint8.onnx)
 * Other packages add theirs with `registerModelFactory` (apps/pipeline registers `tfjs:DIR`,
 * @dv/train's TfjsEncoder), so @dv/eval depends on no training runtime.
 * Dense models rank by exact inner product with corpus embeddings cached by content.
 * Per-model prompts come in through `formatter` (query/document prefixes, joiner).
 */
import { join } from 'node:path';
import type { FormatterSettings, OnnxPrecision } from '@dv/core';
import { Bm25Ranker } from '../encoders/bm25.js';
import { OnnxEncoder } from '../encoders/onnx-encoder.js';
import { OpenAiEmbeddingsEncoder } from '../encoders/openai-embeddings.js';
import type { EmbeddingCache } from '../search/embedding-cache.js';
import { DenseRanker, type Ranker } from '../search/ranker.js';

export interface ModelContext {
  cache?: EmbeddingCache;
  /** Encoding progress of dense models. */
  onEncode?: (kind: 'queries' | 'documents', done: number, total: number) => void;
  formatter?: FormatterSettings;
  env?: Record<string, string | undefined>;
  /** ONNX Runtime execution providers for onnx:DIR (see `selectOrtProviders`). */
  ortProviders?: string[];
  /** Texts per encoder call of dense models (default: the encoder's). */
  batchSize?: number;
  /** onnxruntime intra-op threads for onnx:DIR. */
  threads?: number;
  /** Which graph of an onnx:DIR folder to run (default fp32; see `OnnxEncoder.fromDir`). */
  precision?: OnnxPrecision;
}

export interface ModelFactory {
  readonly usage: string;
  readonly create: (arg: string, ctx: ModelContext) => Promise<Ranker>;
}

const bm25: ModelFactory = {
  usage: 'bm25[:K1,B]',
  async create(arg, ctx) {
    if (!arg) return new Bm25Ranker({ formatter: ctx.formatter });
    const [k1, b] = arg.split(',').map(Number);
    if (!Number.isFinite(k1) || !Number.isFinite(b))
      throw new Error(`bm25 parameters must be "K1,B", found "${arg}"`);
    return new Bm25Ranker({ k1, b, formatter: ctx.formatter });
  },
};

const openai: ModelFactory = {
  usage: 'openai:MODEL',
  async create(model, ctx) {
    if (!model) throw new Error('openai needs a model name: openai:MODEL');
    const env = ctx.env ?? {};
    const encoder = await OpenAiEmbeddingsEncoder.create({
      model,
      baseURL: env.OPENAI_BASE_URL,
      apiKey: env.OPENAI_API_KEY,
      formatter: ctx.formatter,
      cacheFile: ctx.cache
        ? join(ctx.cache.dir, 'openai', `${model.replace(/[^\w.-]+/g, '_')}.jsonl`)
        : undefined,
    });
    return new DenseRanker(encoder, { cache: ctx.cache, onEncode: ctx.onEncode });
  },
};

const onnx: ModelFactory = {
  usage: 'onnx:DIR',
  async create(dir, ctx) {
    if (!dir) throw new Error('onnx needs a model folder: onnx:DIR');
    const encoder = await OnnxEncoder.fromDir(dir, {
      formatter: ctx.formatter,
      ...(ctx.ortProviders ? { executionProviders: ctx.ortProviders } : {}),
      ...(ctx.batchSize ? { batchSize: ctx.batchSize } : {}),
      ...(ctx.threads ? { threads: ctx.threads } : {}),
      ...(ctx.precision ? { precision: ctx.precision } : {}),
    });
    return new DenseRanker(encoder, { cache: ctx.cache, onEncode: ctx.onEncode });
  },
};

/** The registry, keyed by prefix; `registerModelFactory` adds entries. */
export const modelFactories: Readonly<Record<string, ModelFactory>> = { bm25, openai, onnx };

/** Adds `prefix:ARG` specs; a prefix can be registered once (a second call is an error). */
export function registerModelFactory(prefix: string, factory: ModelFactory): void {
  if (!/^[a-z][a-z0-9-]*$/.test(prefix))
    throw new Error(`model prefix must be lower-case letters, digits, '-': "${prefix}"`);
  const registry = modelFactories as Record<string, ModelFactory>;
  if (registry[prefix] && registry[prefix] !== factory)
    throw new Error(`model prefix "${prefix}" is already registered`);
  registry[prefix] = factory;
}

export async function createRanker(spec: string, ctx: ModelContext = {}): Promise<Ranker> {
  const i = spec.indexOf(':');
  const prefix = i < 0 ? spec : spec.slice(0, i);
  const f = Object.hasOwn(modelFactories, prefix) ? modelFactories[prefix] : undefined;
  if (!f)
    throw new Error(
      `unknown model "${spec}"; one of: ${Object.values(modelFactories)
        .map((x) => x.usage)
        .join(', ')}`,
    );
  return f.create(i < 0 ? '' : spec.slice(i + 1), ctx);
}
