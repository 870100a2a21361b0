/**
 * The decision step of one seed: from a parsed answer to exactly one `SynthesisRecord` —
 * `failed` (`unparsable:<why>`), `none`, `rejected` by a guardrail (`guardrail:<reason>`), or
 * the verdict of `judgeAnswer`. Used on a fresh answer (`synthesizeSeed`) and on a cached one
 * whose decision key is stale (`runSynthesis`, see decision-key.ts).
 */
import type { SynthesisTask } from '../backends/synthesis-backend.js';
import { checkGuardrails, type GuardrailOptions } from '../guardrails.js';
import type { ParsedAnswer } from '../parse-answer.js';
import type { Judge } from '../verify/judge.js';
import { judgeAnswer } from './judge-answer.js';
import type { RecordCommon, RunState } from './run-state.js';

export async function decideAnswer(
  state: RunState,
  o: { judge?: Judge; guardrails?: GuardrailOptions; signal?: AbortSignal },
  task: SynthesisTask,
  common: RecordCommon,
  parsed: ParsedAnswer,
): Promise<void> {
  if (parsed.kind === 'unparsable') {
    state.write({ ...common, status: 'failed', newInstruction: null, reason: `unparsable:${parsed.reason}` });
    return;
  }
  if (parsed.kind === 'none') {
    state.write({ ...common, status: 'none', newInstruction: null, reason: 'none' });
    return;
  }
  const g = checkGuardrails(
    {
      newInstruction: parsed.text,
      originalInstruction: task.instruction.text,
      query: task.query,
      ...(parsed.query !== undefined ? { answeredQuery: parsed.query } : {}),
      docids: [task.positive.docid, task.target.docid, ...task.otherNegatives.map((n) => n.docid)],
    },
    o.guardrails,
  );
  if (!g.ok) {
    state.write({
      ...common,
      status: 'rejected',
      newInstruction: parsed.text,
      reason: `guardrail:${g.reason}`,
    });
    return;
  }
  await judgeAnswer(state, o.judge, task, common, parsed.text, o.signal);
}
