/**
 * One seed through the run, after the cache said it needs an answer: backend (askBackend) ->
 * parse -> guardrails -> verdict (judgeAnswer), recording exactly one `SynthesisRecord`, or
 * nothing when the seed stays pending or the run stops:
 *
 * - pending (nothing recorded, a rerun picks it up): a batch answer not there yet
 *   (`TaskPending`), or a request that never reached a server (`connection`);
 * - stop (nothing recorded): see `RunState.stopsRun`;
 * - `failed`: any other backend error (`backend:<reason>`), an unparsable answer
 *   (`unparsable:<why>`);
 * - `none`: the model judged the seed too hard to reverse;
 * - `rejected`: a guardrail (`guardrail:<reason>`) or the judge (`verification`) refused I'.
 */
import { BackendError, type SynthesisTask } from '../backends/synthesis-backend.js';
import type { GuardrailOptions } from '../guardrails.js';
import type { Judge } from '../verify/judge.js';
import { askBackend, type BackendAskFailed } from './ask-backend.js';
import { decideAnswer } from './decide-answer.js';
import type { PromptIdentity, RunState } from './run-state.js';
import { TaskPending } from './task-pending.js';

export interface SeedStepOptions {
  backend: import('../backends/synthesis-backend.js').SynthesisBackend;
  judge?: Judge;
  guardrails?: GuardrailOptions;
  parseRetries: number;
  signal?: AbortSignal;
}

export async function synthesizeSeed(
  state: RunState,
  o: SeedStepOptions,
  task: SynthesisTask,
  prompt: PromptIdentity,
): Promise<void> {
  let reply: Awaited<ReturnType<typeof askBackend>>;
  try {
    reply = await askBackend(o.backend, task, o.parseRetries, o.signal);
  } catch (failure) {
    const { cause: err, usage, attempts } = failure as BackendAskFailed;
    if (state.stopsRun(err)) return;
    if (err instanceof TaskPending || (err instanceof BackendError && err.reason === 'connection')) {
      state.counts.pending++;
      return;
    }
    const be = err instanceof BackendError ? err : undefined;
    state.write({
      ...state.common(task, prompt),
      status: 'failed',
      newInstruction: null,
      reason: `backend:${be?.reason ?? 'error'}`,
      raw: `error: ${(err as Error).message}`,
      usage,
      attempts: Math.max(1, attempts + (be?.attempts ?? 1)),
    });
    return;
  }
  const { parsed, raw, lever, usage, attempts } = reply;
  const common = {
    ...state.common(task, prompt),
    ...(raw !== null ? { raw } : {}),
    ...(lever ? { lever } : {}),
    usage,
    attempts: Math.max(1, attempts),
  };
  await decideAnswer(state, o, task, common, parsed);
}
