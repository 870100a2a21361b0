/**
 * The backend step of one seed: ask for the complementary instruction and parse the answer. A
 * stochastic backend whose answer is unparsable is asked again, up to `parseRetries` more
 * times; token usage and transport attempts add up over the asks. Transport errors propagate.
 */
import type { TokenUsage } from '@dv/core';
import type { SynthesisBackend, SynthesisTask } from '../backends/synthesis-backend.js';
import { type ParsedAnswer, parseAnswer } from '../parse-answer.js';
import { NO_USAGE } from './run-state.js';

export interface BackendReply {
  parsed: ParsedAnswer;
  /** The last answer's text (null: the backend sent none). */
  raw: string | null;
  /** The offline reverser's lever, when it says which. */
  lever?: string;
  usage: TokenUsage;
  attempts: number;
}

/** The usage so far of a `askBackend` that threw: the failure record still accounts for it. */
export class BackendAskFailed extends Error {
  override readonly name = 'BackendAskFailed';
  constructor(
    override readonly cause: unknown,
    readonly usage: TokenUsage,
    readonly attempts: number,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export async function askBackend(
  backend: SynthesisBackend,
  task: SynthesisTask,
  parseRetries: number,
  signal?: AbortSignal,
): Promise<BackendReply> {
  const reply: BackendReply = { parsed: parseAnswer(null), raw: null, usage: NO_USAGE, attempts: 0 };
  try {
    for (let i = 0; i <= parseRetries; i++) {
      const a = await backend.synthesize(task, signal);
      reply.usage = addUsage(reply.usage, a.usage);
      reply.attempts += a.attempts;
      reply.raw = a.raw;
      reply.lever = a.lever;
      reply.parsed = parseAnswer(a.raw);
      if (reply.parsed.kind !== 'unparsable' || !backend.stochastic) break;
    }
  } catch (err) {
    throw new BackendAskFailed(err, reply.usage, reply.attempts);
  }
  return reply;
}
