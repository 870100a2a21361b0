/**
 * The verdict step of one seed: judge the complementary instruction I' (or accept it when the
 * run has no judge) and record the verdict. Under (q, I') the target D- must be relevant and
 * D+ not (verify/judge.ts). A judge that fails records `failed` with reason `judge:<reason>`,
 * unless the failure stops the run (cost cap, refused key), which records nothing.
 */
import { BackendError, type SynthesisTask } from '../backends/synthesis-backend.js';
import type { Judge } from '../verify/judge.js';
import type { RecordCommon, RunState } from './run-state.js';

export async function judgeAnswer(
  state: RunState,
  judge: Judge | undefined,
  task: SynthesisTask,
  common: RecordCommon,
  newInstruction: string,
  signal?: AbortSignal,
): Promise<void> {
  if (!judge) {
    state.write({ ...common, status: 'accepted', newInstruction, reason: null });
    return;
  }
  try {
    const v = await judge.judge(
      {
        seedId: task.seedId,
        query: task.query,
        newInstruction,
        positive: task.positive,
        target: task.target,
        otherNegatives: task.otherNegatives,
      },
      signal,
    );
    state.write({
      ...common,
      status: v.passed ? 'accepted' : 'rejected',
      newInstruction,
      reason: v.passed ? null : 'verification',
      verification: v,
    });
  } catch (err) {
    if (state.stopsRun(err)) return;
    const be = err instanceof BackendError ? err : undefined;
    state.write({ ...common, status: 'failed', newInstruction, reason: `judge:${be?.reason ?? 'error'}` });
  }
}
