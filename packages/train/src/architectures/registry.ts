/**
 * The encoder architectures, by Hugging Face `model_type`: `bert` (BertModel), `xlm-roberta`
 * (XLMRobertaModel) and `new` (Alibaba's gte NewModel). Each entry is one module folder
 * (config schema, parameters, tfjs forward, ONNX graph, Hugging Face files; see
 * encoder-architecture.ts for the contract). Generic code asks `architectureOf(config)` instead
 * of switching on `model_type`.
 *
 * `encoderConfigSchema` validates a Hugging Face `config.json` against the modules' schemas
 * (discriminated by `model_type`). Unknown keys are kept, so a config round-trips through
 * `exportHuggingFace` unchanged; features a module does not implement are refused here rather
 * than run or exported wrongly. To add an architecture: a folder beside `bert/` with the same
 * files, an entry below and its schema in the union (docs/architecture.md).
 */
import { DataError, describeZodIssues } from '@dv/core';
import { z } from 'zod';
import { bertArchitecture } from './bert/index.js';
import type { EncoderArchitecture } from './encoder-architecture.js';
import { gteNewArchitecture } from './gte-new/index.js';
import { xlmRobertaArchitecture } from './xlm-roberta/index.js';

export const architectures = Object.freeze({
  bert: bertArchitecture,
  'xlm-roberta': xlmRobertaArchitecture,
  new: gteNewArchitecture,
} as const);

export const encoderConfigSchema = z
  .discriminatedUnion('model_type', [
    architectures.bert.configSchema,
    architectures['xlm-roberta'].configSchema,
    architectures.new.configSchema,
  ])
  .refine((c) => c.hidden_size % c.num_attention_heads === 0, {
    message: 'hidden_size must be a multiple of num_attention_heads',
  });

export type EncoderConfig = z.infer<typeof encoderConfigSchema>;
export type EncoderModelType = EncoderConfig['model_type'];

// Every key is its module's model_type, and every model_type of the union has a module.
architectures satisfies {
  readonly [K in EncoderModelType]: EncoderArchitecture<Extract<EncoderConfig, { model_type: K }>> & {
    readonly modelType: K;
  };
};

/** The module of a parsed config's `model_type`. */
export function architectureOf(config: EncoderConfig): EncoderArchitecture<EncoderConfig> {
  // Sound: the entry is chosen by the config's own model_type (checked above).
  return architectures[config.model_type] as unknown as EncoderArchitecture<EncoderConfig>;
}

/** Validates a parsed config.json; `source` names it in the error. */
export function parseEncoderConfig(json: unknown, source = 'config.json'): EncoderConfig {
  const r = encoderConfigSchema.safeParse(json);
  if (!r.success)
    throw new DataError(
      `unsupported or invalid encoder config: ${describeZodIssues(r.error.issues)}`,
      source,
    );
  return r.data;
}
