/**
 * Model specs as the CLI takes them (`--model SPEC`), resolved through a frozen registry of
 * prefixes to rankers:
 *   bm25[:K1,B]          the lexical baseline (default k1 0.9, b 0.4)
 *   openai:MODEL         an OpenAI-compatible embeddings endpoint (OPENAI_BASE_URL,
 *                        OPENAI_API_KEY from the environment); vectors cached per text
 *   onnx:DIR             an ONNX model folder (model.onnx + tokenizer.json)
 *   tfjs:DIR             a @dv/train model run by tfjs: an HF folder (config.json +
 *                        model.safetensors + tokenizer.json) or a training checkpoint
 *                        (tokenizer.json in it or its parent); backend from DV_TF_BACKEND
 * Dense models rank by exact inner product with corpus embeddings cached by content.
 * Per-model prompts come in through `formatter` (query/document prefixes, joiner).
 */
import { join } from 'node:path';
import type { FormatterSettings } from '@dv/core';
import { Bm25Ranker } from '../encoders/bm25.js';
import { OnnxEncoder } from '../encoders/onnx-encoder.js';
import { OpenAiEmbeddingsEncoder } from '../encoders/openai-embeddings.js';
import { TfjsEncoder } from '../encoders/tfjs-encoder.js';
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
    });
    return new DenseRanker(encoder, { cache: ctx.cache, onEncode: ctx.onEncode });
  },
};

const tfjs: ModelFactory = {
  usage: 'tfjs:DIR',
  async create(dir, ctx) {
    if (!dir) throw new Error('tfjs needs a model folder: tfjs:DIR');
    const encoder = await TfjsEncoder.fromDir(dir, { formatter: ctx.formatter });
    return new DenseRanker(encoder, { cache: ctx.cache, onEncode: ctx.onEncode });
  },
};

export const modelFactories = Object.freeze({ bm25, openai, onnx, tfjs } as const satisfies Record<
  string,
  ModelFactory
>);

export async function createRanker(spec: string, ctx: ModelContext = {}): Promise<Ranker> {
  const i = spec.indexOf(':');
  const prefix = i < 0 ? spec : spec.slice(0, i);
  const f = (modelFactories as Record<string, ModelFactory>)[prefix];
  if (!f)
    throw new Error(
      `unknown model "${spec}"; one of: ${Object.values(modelFactories)
        .map((x) => x.usage)
        .join(', ')}`,
    );
  return f.create(i < 0 ? '' : spec.slice(i + 1), ctx);
}
