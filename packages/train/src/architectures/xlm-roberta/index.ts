/**
 * `model_type: xlm-roberta` (XLMRobertaModel): BERT's layers and parameters
 * (../bert/parameters.ts) with position ids offset by the padding id; no token-type input in
 * the ONNX graph. Config in config.ts, forward pass in forward.ts, ONNX graph in onnx-graph.ts.
 */
import { bertPooler } from '../bert/index.js';
import { bertParameters } from '../bert/parameters.js';
import type { EncoderArchitecture } from '../encoder-architecture.js';
import { type XlmRobertaConfig, xlmRobertaConfigSchema } from './config.js';
import { xlmRobertaForward } from './forward.js';
import { xlmRobertaOnnxGraph } from './onnx-graph.js';

/** XLM-R's (sentencepiece) special tokens, as its tokenizer_config.json names them. */
export const xlmRobertaSpecialTokens = {
  bos_token: '<s>',
  eos_token: '</s>',
  cls_token: '<s>',
  sep_token: '</s>',
  pad_token: '<pad>',
  unk_token: '<unk>',
  mask_token: '<mask>',
} as const;

export const xlmRobertaArchitecture = Object.freeze({
  modelType: 'xlm-roberta',
  configSchema: xlmRobertaConfigSchema,
  parameters: bertParameters,
  forward: xlmRobertaForward,
  onnxTokenTypeIds: false,
  onnxGraph: xlmRobertaOnnxGraph,
  pooler: bertPooler,
  huggingFace: {
    hfClass: 'XLMRobertaModel',
    baseModelPrefix: 'roberta',
    tokenizerClass: 'XLMRobertaTokenizer',
    specialTokens: xlmRobertaSpecialTokens,
    positionOffset: (c) => c.pad_token_id + 1,
    absolutePositions: true,
    doLowerCase: false,
    trustRemoteCode: false,
  },
} as const satisfies EncoderArchitecture<XlmRobertaConfig>);
