/**
 * What a synthesis run tells its caller while it runs (`createSynthesisRun`'s `io.onEvent`),
 * as typed events: a CLI prints them, a pipeline stage logs them, a test asserts on them;
 * nobody parses log text. The per-seed progress line is drawn by @dv/core's progress.
 *
 * - `start`: the run is set up (backend, model, template, judge, shard); nothing sent yet.
 * - `retry`: the endpoint client retries a request (429/5xx/timeout), after `delayMs`.
 */
import type { ShardSpec } from '@dv/core';

export type SynthesisEvent =
  | {
      type: 'start';
      backend: string;
      model: string;
      template: { id: string; version: string };
      /** The judge's name, or null without verification. */
      judge: string | null;
      shard: ShardSpec | null;
    }
  | { type: 'retry'; attempt: number; reason: string; delayMs: number; endpoint: string };
