/**
 * Registry of prompt templates, keyed by id. Each entry pins its version; the version and the
 * hash of the rendered prompt go into every record, so a wording change never reuses a cache.
 */
import { type ChatMessage, contentHash } from '@dv/core';
import { polarityReversalV1 } from './templates/polarity-reversal.js';
import type { PromptTemplate, TemplateInput } from './templates/prompt-template.js';

export const templates = Object.freeze({
  'polarity-reversal': polarityReversalV1,
} as const satisfies Record<string, PromptTemplate>);

export type TemplateId = keyof typeof templates;

export function getTemplate(id: string): PromptTemplate {
  const t = (templates as Record<string, PromptTemplate>)[id];
  if (!t) throw new Error(`unknown prompt template '${id}'; known: ${Object.keys(templates).join(', ')}`);
  return t;
}

export interface RenderedPrompt {
  templateId: string;
  templateVersion: string;
  messages: ChatMessage[];
  /** SHA-256 (hex, 32 chars) of the canonical JSON of the messages. */
  promptHash: string;
}

export function renderPrompt(template: PromptTemplate, input: TemplateInput): RenderedPrompt {
  const messages = template.render(input);
  return {
    templateId: template.id,
    templateVersion: template.version,
    messages,
    promptHash: contentHash(messages, 32),
  };
}
