/**
 * The key of how a journal record was decided from the model's answer (issue 25; @dv/core's
 * keyed-resume contract). The answer itself is cached by the task's content key (prompt hash,
 * model, sampling: `synthesis-task.ts`); what the run then decides from it — parse, guardrails,
 * the judge's verdict — is keyed here:
 *
 *   decisionKey = cacheKey({ kind: 'synthesis-decision',
 *                            slice: { judge, threshold, guardrails },
 *                            code:  code digest of DECISION_CODE })
 *
 * A decided record (accepted, rejected, none, unparsable) carries the key it was decided under;
 * a record whose key is not the current one (other judge settings, other guardrail options,
 * other parse / guardrail / verification code, or written before keys were recorded) is decided
 * again from its cached answer (`raw`), no new request to the synthesis backend.
 */
import { type CodeRef, cacheKey, codeDigests, type SynthesisRecord } from '@dv/core';
import type { GuardrailOptions } from '../guardrails.js';
import type { Judge } from '../verify/judge.js';

/**
 * The code that decides a record from an answer: the parser, the guardrails, the verdict step
 * and the judges (the import closures of these files inside @dv/synth), with @dv/core whole.
 */
export const DECISION_CODE: CodeRef = {
  package: '@dv/synth',
  label: '@dv/synth:decide',
  entries: [
    'src/parse-answer.ts',
    'src/guardrails.ts',
    'src/run/decide-answer.ts',
    'src/verify/judge-registry.ts',
  ],
};

/** The current decision key; `code` replaces the code digest taken now (tests and tools). */
export function decisionKey(
  s: { judge?: Judge | undefined; guardrails?: GuardrailOptions | undefined },
  code?: Readonly<Record<string, string>>,
): string {
  let codePart = code;
  if (!codePart) {
    const taken: Record<string, string> = {};
    for (const [label, d] of Object.entries(codeDigests([DECISION_CODE], import.meta.url)))
      taken[label] = d.digest;
    codePart = taken;
  }
  return cacheKey({
    kind: 'synthesis-decision',
    slice: {
      judge: s.judge?.name ?? null,
      threshold: s.judge?.threshold ?? null,
      guardrails: s.guardrails ?? null,
    },
    code: codePart,
  }).key;
}

/** Whether a record's status was decided from an answer (not a transport or judge failure). */
export function isDecided(r: Pick<SynthesisRecord, 'status' | 'reason'>): boolean {
  if (r.status === 'failed') return (r.reason ?? '').startsWith('unparsable:');
  return true;
}
