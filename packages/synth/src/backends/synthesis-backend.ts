/**
 * The one interface every synthesis backend implements (offline reverser, OpenAI-compatible
 * chat, scripted test double). A backend gets a task (the rendered chat messages AND the
 * structured seed they were rendered from) and returns the raw answer text; parsing,
 * guardrails and verification are the engine's job, so every backend is judged alike.
 *
 * Backends that can hold a free-form conversation also expose `chat`, which the LLM judge uses.
 */
import type { ChatMessage, Passage, TokenUsage } from '@dv/core';

export interface SynthesisTask {
  key: string;
  seedId: string;
  query: string;
  instruction: { text: string; lever?: string; style?: string };
  positive: Passage;
  target: Passage;
  otherNegatives: Passage[];
  messages: ChatMessage[];
  model: string;
  temperature?: number;
  maxTokens?: number;
}

export interface BackendAnswer {
  raw: string | null;
  usage: TokenUsage;
  /** Transport attempts it took (1 = first try). */
  attempts: number;
  /** The reversal lever, when the backend knows it (the offline reverser does). */
  lever?: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  model?: string;
  temperature?: number;
  maxTokens?: number;
}

export interface ChatResult {
  text: string | null;
  usage: TokenUsage;
  attempts: number;
}

export interface SynthesisBackend {
  /** Registry name (`offline`, `openai`, `scripted`...). */
  readonly name: string;
  readonly model: string;
  synthesize(task: SynthesisTask, signal?: AbortSignal): Promise<BackendAnswer>;
  chat?(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** Whether asking again can give a different answer (worth a retry on unparsable output). */
  readonly stochastic: boolean;
  close?(): Promise<void>;
}

/**
 * A backend gave up on a request. `reason` is a short code (`timeout`, `unreachable`,
 * `connection`, `batch:<code>`, ...): the run stops on auth and `unreachable`, leaves
 * `connection` failures pending for a later run, and records the rest as failed rows
 * (`backend:<reason>`). `attempts` counts the tries the backend already made.
 */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  constructor(
    message: string,
    readonly reason: string,
    readonly attempts = 1,
  ) {
    super(message);
  }
}

/** Thrown when the usage ledger's cost cap is reached: the run stops dispatching cleanly. */
export class CostCapReached extends Error {
  override readonly name = 'CostCapReached';
}

export const zeroUsage = (): TokenUsage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
