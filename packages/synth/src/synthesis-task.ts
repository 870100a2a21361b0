/**
 * From a seed to a synthesis task: choose the instruction negative to reverse (the first one:
 * Promptriever lists its instruction negatives in generation order), render the prompt, and
 * compute the content key that makes runs resumable and shardable.
 *
 * key = contentHash({ seed content, negative docid, template id + version, prompt hash, model,
 * temperature, max tokens }): anything that can change the answer changes the key.
 */
import { contentHash, type SeedExample, type SynthesisRequest } from '@dv/core';
import type { SynthesisTask } from './backends/synthesis-backend.js';
import { renderPrompt } from './template-registry.js';
import type { PromptTemplate } from './templates/prompt-template.js';

export interface TaskSettings {
  template: PromptTemplate;
  model: string;
  temperature?: number;
  maxTokens?: number;
}

export type PreparedTask =
  | { ok: true; task: SynthesisTask; request: SynthesisRequest }
  | { ok: false; seedId: string; key: string; reason: string };

export function prepareTask(seed: SeedExample, s: TaskSettings): PreparedTask {
  const positive = seed.positives[0]!;
  const target = seed.instructionNegatives[0];
  if (!target) {
    return {
      ok: false,
      seedId: seed.id,
      key: contentHash({
        seed: contentHash(seed),
        template: s.template.id,
        v: s.template.version,
        model: s.model,
      }),
      reason: 'no-instruction-negative',
    };
  }
  const otherNegatives = seed.instructionNegatives.slice(1);
  const rendered = renderPrompt(s.template, {
    query: seed.query,
    instruction: seed.instruction.text,
    positive,
    target,
    otherNegatives,
  });
  const key = contentHash({
    seed: contentHash(seed),
    negativeDocid: target.docid,
    templateId: rendered.templateId,
    templateVersion: rendered.templateVersion,
    promptHash: rendered.promptHash,
    model: s.model,
    temperature: s.temperature,
    maxTokens: s.maxTokens,
  });
  const request: SynthesisRequest = {
    key,
    seedId: seed.id,
    negativeDocid: target.docid,
    templateId: rendered.templateId,
    templateVersion: rendered.templateVersion,
    promptHash: rendered.promptHash,
    messages: rendered.messages,
    model: s.model,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
  };
  return {
    ok: true,
    request,
    task: {
      key,
      seedId: seed.id,
      query: seed.query,
      instruction: seed.instruction,
      positive,
      target,
      otherNegatives,
      messages: rendered.messages,
      model: s.model,
      temperature: s.temperature,
      maxTokens: s.maxTokens,
    },
  };
}

/** Shard membership by a stable hash of the seed id: `index` in [0, count). */
export function inShard(seedId: string, shard?: { index: number; count: number }): boolean {
  if (!shard || shard.count <= 1) return true;
  return Number.parseInt(contentHash(seedId, 8), 16) % shard.count === shard.index;
}
