/**
 * A deterministic scripted backend for unit tests: answers come from a function of the task
 * (or a fixed list), with no network. Not for real runs.
 */
import type { TokenUsage } from '@dv/core';
import type {
  BackendAnswer,
  ChatRequest,
  ChatResult,
  SynthesisBackend,
  SynthesisTask,
} from './synthesis-backend.js';
import { zeroUsage } from './synthesis-backend.js';

export interface ScriptedOptions {
  answer: (task: SynthesisTask, call: number) => string | null | Error;
  chat?: (request: ChatRequest, call: number) => string | null;
  usage?: TokenUsage;
  model?: string;
}

export function createScriptedBackend(options: ScriptedOptions): SynthesisBackend & { calls: number } {
  let calls = 0;
  let chatCalls = 0;
  return {
    name: 'scripted',
    model: options.model ?? 'scripted',
    stochastic: true,
    get calls() {
      return calls;
    },
    async synthesize(task: SynthesisTask): Promise<BackendAnswer> {
      const a = options.answer(task, calls++);
      if (a instanceof Error) throw a;
      return { raw: a, usage: options.usage ?? zeroUsage(), attempts: 1 };
    },
    async chat(request: ChatRequest): Promise<ChatResult> {
      if (!options.chat) throw new Error('scripted backend has no chat script');
      return { text: options.chat(request, chatCalls++), usage: options.usage ?? zeroUsage(), attempts: 1 };
    },
  };
}
