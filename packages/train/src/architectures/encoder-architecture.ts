/**
 * The contract of an encoder architecture module (one folder per Hugging Face `model_type`
 * under `architectures/`, as transformers.js keeps one folder per model): its config.json
 * schema, its parameter names and shapes, its tfjs forward pass and its ONNX graph, plus the
 * files a Hugging Face folder of it needs. Generic code (the trainable `TransformerEncoder`, the
 * ONNX and Hugging Face exporters) looks the module up in `registry.ts` and never switches on
 * `model_type` itself.
 *
 * Parameter names are Hugging Face's without the base-model prefix, in torch layouts (a Linear
 * weight is [out, in]). Forward passes mirror the reference PyTorch module in eval mode; dropout
 * is applied only where a `dropout` function is passed.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import type { z } from 'zod';
import type { EncoderConfigBase } from './shared/config-fields.js';
import type { OnnxGraphOps } from './shared/onnx-graph-ops.js';

export interface ParameterSpec {
  shape: number[];
  /** How a fresh model initialises it (BERT's scheme: N(0, initializer_range), LayerNorm 1/0). */
  init: 'normal' | 'ones' | 'zeros';
  /**
   * Not reached by the sentence embedding (the BERT pooler): kept and exported, not trained,
   * and optional in a checkpoint.
   */
  trainable?: boolean;
}

export interface ForwardInputs {
  inputIds: Tensor;
  attentionMask: Tensor;
  tokenTypeIds?: Tensor;
}

export type Params = (name: string) => Tensor;
/** Which positions of the last hidden state to compute: all, or only position 0 (CLS pooling). */
export type OutputRows = 'all' | 'cls';
export type Dropout = (x: Tensor) => Tensor;

/** Names of the ONNX graph inputs (int64 [batch, sequence]) an architecture reads. */
export interface OnnxInputs {
  readonly inputIds: string;
  readonly attentionMask: string;
  readonly tokenTypeIds?: string;
}

/** What a Hugging Face / sentence-transformers folder of this architecture needs. */
export interface HuggingFaceFiles<C> {
  /** `architectures[0]` of config.json (the transformers class). */
  readonly hfClass: string;
  /**
   * The class's `base_model_prefix`: checkpoints of models with a head (`BertForMaskedLM`...)
   * name the encoder's tensors `<prefix>.embeddings...`.
   */
  readonly baseModelPrefix: string;
  readonly tokenizerClass: string;
  readonly specialTokens: Readonly<Record<string, string>>;
  /** Positions the table cannot use (XLM-R reserves padding_idx + 1 slots). */
  readonly positionOffset: (c: C) => number;
  /** True when a learned position table bounds the sequence length (false for rotary). */
  readonly absolutePositions: boolean;
  /** Write `do_lower_case` (as the tokenizer.json's normaliser says) into tokenizer_config.json. */
  readonly doLowerCase: boolean;
  /** `auto_map` for remote code, set in config.json when the config has none. */
  readonly autoMap?: Readonly<Record<string, string>>;
  /** Loading needs `trust_remote_code=True` (written into sentence_bert_config.json). */
  readonly trustRemoteCode: boolean;
}

/** The BERT-style pooler tanh(W h[:,0] + b), for architectures that have one. */
export interface PoolerHead {
  /** Its parameters; a checkpoint may lack them (the pooler is then absent). */
  readonly parameters: readonly string[];
  /** [B, H] CLS rows -> [B, H]. */
  forward(p: Params, cls: Tensor): Tensor;
  /** The same on ONNX value `cls` [B, H]; returns the output value name. */
  onnx(g: OnnxGraphOps, cls: string): string;
}

export interface EncoderArchitecture<C extends EncoderConfigBase = EncoderConfigBase> {
  /** The Hugging Face `model_type` this module implements (its key in the registry). */
  readonly modelType: C['model_type'];
  /** Schema of the config.json fields read; refuses features the module does not implement. */
  readonly configSchema: z.ZodType<C>;
  /** Parameter names (HF, no base-model prefix) -> shape and initialisation, in a stable order. */
  parameters(config: C): Record<string, ParameterSpec>;
  /** Last hidden state [B, T, H], or [B, 1, H] with rows `cls`. */
  forward(config: C, p: Params, inputs: ForwardInputs, dropout: Dropout, rows: OutputRows): Tensor;
  /** Whether the ONNX graph takes a `token_type_ids` input (else token type 0 is added). */
  readonly onnxTokenTypeIds: boolean;
  /** Adds the encoder to an ONNX graph; returns the last hidden state's value name [B, S, H]. */
  onnxGraph(g: OnnxGraphOps, config: C, inputs: OnnxInputs, maskBias: string): string;
  readonly pooler?: PoolerHead;
  readonly huggingFace: HuggingFaceFiles<C>;
}
