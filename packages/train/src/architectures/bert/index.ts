/**
 * `model_type: bert` (transformers BertModel): word + absolute position (0..T-1) + token-type
 * embeddings, post-LN layers, a pooler. Config in config.ts, parameters in parameters.ts, the
 * tfjs forward pass in forward.ts, the ONNX graph in onnx-graph.ts.
 */
import type { EncoderArchitecture } from '../encoder-architecture.js';
import { type BertConfig, bertConfigSchema } from './config.js';
import { bertForward, bertPoolerForward } from './forward.js';
import { bertOnnxGraph, bertOnnxPooler } from './onnx-graph.js';
import { bertParameters } from './parameters.js';

/** BERT's special tokens, as its tokenizer_config.json names them. */
export const bertSpecialTokens = {
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  mask_token: '[MASK]',
} as const;

/** The BERT pooler, shared with XLM-RoBERTa. */
export const bertPooler = {
  parameters: ['pooler.dense.weight', 'pooler.dense.bias'],
  forward: bertPoolerForward,
  onnx: bertOnnxPooler,
} as const;

export const bertArchitecture = Object.freeze({
  modelType: 'bert',
  configSchema: bertConfigSchema,
  parameters: bertParameters,
  forward: bertForward,
  onnxTokenTypeIds: true,
  onnxGraph: bertOnnxGraph,
  pooler: bertPooler,
  huggingFace: {
    hfClass: 'BertModel',
    baseModelPrefix: 'bert',
    tokenizerClass: 'BertTokenizer',
    specialTokens: bertSpecialTokens,
    positionOffset: () => 0,
    absolutePositions: true,
    doLowerCase: true,
    trustRemoteCode: false,
  },
} as const satisfies EncoderArchitecture<BertConfig>);
