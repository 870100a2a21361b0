/**
 * Hugging Face + sentence-transformers layout export, so a trained encoder loads with
 * `SentenceTransformer(dir)` (and `AutoModel.from_pretrained(dir)`) in Python:
 *
 *   config.json                       the HF config (unknown keys kept; `architectures` set)
 *   model.safetensors                 float32 weights, HF names without base-model prefix
 *   tokenizer.json                    copied through byte for byte
 *   tokenizer_config.json             tokenizer class + special tokens + model_max_length
 *   modules.json                      Transformer -> Pooling (-> Normalize)
 *   sentence_bert_config.json         max_seq_length (+ trust_remote_code args for gte)
 *   config_sentence_transformers.json prompts, similarity function
 *   1_Pooling/config.json             cls or mean pooling
 *   2_Normalize/                      only when `normalize` (the module has no config)
 *   onnx/model.onnx                   optional (`withOnnx`), the same graph `exportOnnx` writes
 *   onnx/model_qint8.onnx             optional (`withOnnx: ['fp32', 'int8']`), the int8 graph
 *   onnx/model_cls.onnx               with each graph of a CLS-pooled BERT / XLM-R, its
 *   onnx/model_qint8_cls.onnx         embedding-only form (last layer at position 0 only)
 *
 * Layout as sentence-transformers saves a model (`SentenceTransformer.save`, v6). What differs
 * by architecture (transformers class, tokenizer class and special tokens, usable positions,
 * `auto_map` and `trust_remote_code` for gte NewModel's remote code) is the `huggingFace` part
 * of its module in ../../architectures/.
 * Each file is written atomically; the folder as a whole is not (write to a fresh folder).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DataError,
  type OnnxPrecision,
  onnxClsModelFile,
  onnxModelFile,
  type Pooling,
  writeBytesAtomic,
  writeJsonAtomic,
} from '@dv/core';
import { architectureOf, parseEncoderConfig } from '../../architectures/registry.js';
import { writeSafetensors } from '../../safetensors/index.js';
import { type EncoderWeight, type EncoderWeights, toWeightMap } from '../encoder-weights.js';
import { hasClsGraph } from '../onnx/encoder-graph.js';
import { exportOnnx } from '../onnx/export-onnx.js';

export interface HuggingFaceExportInput {
  /** The model's Hugging Face config.json (parsed JSON). */
  readonly config: unknown;
  /** HF-named float32 weights (see encoder-weights.ts); written as given. */
  readonly weights: EncoderWeights | Readonly<Record<string, EncoderWeight>>;
  /** Path of the `tokenizer.json` to copy through. */
  readonly tokenizerJson: string;
  readonly pooling: Pooling;
  readonly normalize: boolean;
  /** sentence-transformers max_seq_length. Default: the position table's usable length, at most 512. */
  readonly maxSeqLength?: number;
  /** Keys merged over the derived tokenizer_config.json. */
  readonly tokenizerConfig?: Readonly<Record<string, unknown>>;
  /** sentence-transformers prompts, e.g. `{ query: 'query: ' }`. Default none. */
  readonly prompts?: Readonly<Record<string, string>>;
  /** Extra safetensors `__metadata__` entries (`format: pt` is always set). */
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * Also write the ONNX graph: `true` = float32 `onnx/model.onnx`; a list of precisions writes
   * each one's file (@dv/core `onnxModelFile`). Default none.
   */
  readonly withOnnx?: boolean | readonly OnnxPrecision[];
}

/** do_lower_case as the tokenizer.json's BertNormalizer says (false when it has none). */
function lowercases(tokenizer: Record<string, unknown>): boolean {
  const n = tokenizer.normalizer as { type?: string; lowercase?: boolean; normalizers?: unknown[] } | null;
  if (!n) return false;
  if (n.type === 'BertNormalizer') return n.lowercase !== false;
  if (n.type === 'Lowercase') return true;
  if (n.type === 'Sequence') return (n.normalizers ?? []).some((x) => lowercases({ normalizer: x }));
  return false;
}

/** Writes the HF + sentence-transformers folder `dir`; returns the paths written. */
export async function exportHuggingFace(dir: string, input: HuggingFaceExportInput): Promise<string[]> {
  const config = parseEncoderConfig(input.config);
  const arch = architectureOf(config).huggingFace;
  const weights = toWeightMap(input.weights);
  const tokenizerBytes = readFileSync(input.tokenizerJson);
  let tokenizer: Record<string, unknown>;
  try {
    tokenizer = JSON.parse(tokenizerBytes.toString('utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new DataError(`not a tokenizer.json: ${(e as Error).message}`, input.tokenizerJson);
  }
  if (typeof tokenizer?.model !== 'object')
    throw new DataError('not a tokenizer.json: no "model" object', input.tokenizerJson);
  const maxSeqLength =
    input.maxSeqLength ?? Math.min(512, config.max_position_embeddings - arch.positionOffset(config));
  if (arch.absolutePositions && maxSeqLength > config.max_position_embeddings - arch.positionOffset(config)) {
    throw new DataError(
      `maxSeqLength ${maxSeqLength} exceeds the ${config.max_position_embeddings}-row position table`,
    );
  }

  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const json = async (rel: string, value: unknown) => {
    const path = join(dir, rel);
    await writeJsonAtomic(path, value);
    written.push(path);
  };

  const hfConfig: Record<string, unknown> = { ...(input.config as Record<string, unknown>) };
  hfConfig.architectures = [arch.hfClass];
  if (arch.autoMap && !hfConfig.auto_map) hfConfig.auto_map = arch.autoMap;
  await json('config.json', hfConfig);

  const tensors = new Map(
    [...weights].map(([name, w]) => [name, { dtype: 'F32' as const, shape: w.shape, data: w.data }]),
  );
  const modelPath = join(dir, 'model.safetensors');
  writeSafetensors(modelPath, tensors, { ...input.metadata, format: 'pt' });
  written.push(modelPath);

  const tokenizerPath = join(dir, 'tokenizer.json');
  writeBytesAtomic(tokenizerPath, [tokenizerBytes]);
  written.push(tokenizerPath);
  await json('tokenizer_config.json', {
    tokenizer_class: arch.tokenizerClass,
    ...arch.specialTokens,
    ...(arch.doLowerCase ? { do_lower_case: lowercases(tokenizer) } : {}),
    model_max_length: maxSeqLength,
    ...input.tokenizerConfig,
  });

  const modules = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
  ];
  if (input.normalize)
    modules.push({ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' });
  await json('modules.json', modules);
  const remote = arch.trustRemoteCode ? { trust_remote_code: true } : undefined;
  await json('sentence_bert_config.json', {
    max_seq_length: maxSeqLength,
    do_lower_case: false,
    ...(remote ? { model_args: remote, config_args: remote, tokenizer_args: remote } : {}),
  });
  await json('config_sentence_transformers.json', {
    model_type: 'SentenceTransformer',
    prompts: input.prompts ?? {},
    default_prompt_name: null,
    similarity_fn_name: 'cosine',
  });
  await json('1_Pooling/config.json', {
    word_embedding_dimension: config.hidden_size,
    pooling_mode_cls_token: input.pooling === 'cls',
    pooling_mode_mean_tokens: input.pooling === 'mean',
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
    pooling_mode_weightedmean_tokens: false,
    pooling_mode_lasttoken: false,
    include_prompt: true,
  });
  if (input.normalize) mkdirSync(join(dir, '2_Normalize'), { recursive: true });
  const precisions: readonly OnnxPrecision[] =
    input.withOnnx === true ? ['fp32'] : input.withOnnx === false || !input.withOnnx ? [] : input.withOnnx;
  for (const precision of precisions) {
    const onnxPath = join(dir, onnxModelFile(precision));
    exportOnnx(onnxPath, { config, weights, pooling: input.pooling, normalize: input.normalize, precision });
    written.push(onnxPath);
    if (input.pooling === 'cls' && hasClsGraph(config)) {
      const clsPath = join(dir, onnxClsModelFile(precision));
      exportOnnx(clsPath, {
        config,
        weights,
        pooling: 'cls',
        normalize: input.normalize,
        precision,
        clsOnly: true,
      });
      written.push(clsPath);
    }
  }
  return written;
}
