/**
 * The formatter options every command that encodes text shares (`dv eval run`, `dv eval
 * encode`): the model's query and document prompts and the instruction's place. One block, so
 * the corpus an `encode` shard embeds is formatted as the later `eval run` formats it.
 */
import { FormatterSettings } from '@dv/core';
import type { CommandContext, OptionSpec } from '../cli-kit.js';

export const formatterOptions = {
  'query-prefix': {
    type: 'string',
    description: "model prompt before each query (e.g. 'query: ')",
    valueName: 'TEXT',
  },
  'document-prefix': {
    type: 'string',
    description: 'model prompt before each document',
    valueName: 'TEXT',
  },
  'instruction-first': { type: 'boolean', description: 'put the instruction before the query' },
} as const satisfies Record<string, OptionSpec>;

/** The formatter settings the options above give. */
export function formatterFrom(ctx: CommandContext): FormatterSettings {
  return FormatterSettings.parse({
    queryPrefix: ctx.values['query-prefix'] ?? '',
    documentPrefix: ctx.values['document-prefix'] ?? '',
    instructionFirst: Boolean(ctx.values['instruction-first']),
  });
}
