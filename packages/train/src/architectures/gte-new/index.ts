/**
 * `model_type: new` (Alibaba's gte NewModel, Alibaba-NLP/new-impl): rotary positions with NTK
 * scaling, packed QKV, gated FFN, post-LN, no pooler. It has no built-in transformers class:
 * its config keeps (or gets) the released `auto_map` pointing at `Alibaba-NLP/new-impl`, so
 * loading an exported folder needs `trust_remote_code=True` and that code. Config in
 * config.ts, parameters in parameters.ts, forward pass in forward.ts, ONNX graph in
 * onnx-graph.ts, rotary frequencies in rope-inverse-frequencies.ts.
 */
import type { EncoderArchitecture } from '../encoder-architecture.js';
import { xlmRobertaSpecialTokens } from '../xlm-roberta/index.js';
import { type GteNewConfig, gteNewConfigSchema } from './config.js';
import { gteNewForward } from './forward.js';
import { gteNewOnnxGraph } from './onnx-graph.js';
import { gteNewParameters } from './parameters.js';

export const gteNewArchitecture = Object.freeze({
  modelType: 'new',
  configSchema: gteNewConfigSchema,
  parameters: gteNewParameters,
  forward: gteNewForward,
  onnxTokenTypeIds: false,
  onnxGraph: gteNewOnnxGraph,
  huggingFace: {
    hfClass: 'NewModel',
    baseModelPrefix: 'new',
    // gte-multilingual uses XLM-R's sentencepiece tokenizer.
    tokenizerClass: 'XLMRobertaTokenizer',
    specialTokens: xlmRobertaSpecialTokens,
    positionOffset: () => 0,
    absolutePositions: false,
    doLowerCase: false,
    autoMap: {
      AutoConfig: 'Alibaba-NLP/new-impl--configuration.NewConfig',
      AutoModel: 'Alibaba-NLP/new-impl--modeling.NewModel',
    },
    trustRemoteCode: true,
  },
} as const satisfies EncoderArchitecture<GteNewConfig>);
