/**
 * Whether a journal record's verdict was made under the current judge settings. Answers are
 * cached by content key (judge settings do not change what the model writes); the verdict is
 * cached only for the same judge name and threshold, else redone from the cached answer
 * (issue 12 item 4: another --judge or --judge-threshold silently reused old verdicts).
 * With the current decision key (issue 25, decision-key.ts: judge settings, guardrail options
 * and the code digest of the deciding code), a decided record is current only when it carries
 * that key; a record without one was decided before keys were recorded, so it is not.
 */
import type { SynthesisRecord } from '@dv/core';
import type { Judge } from '../verify/judge.js';
import { isDecided } from './decision-key.js';

export function verdictIsCurrent(
  r: SynthesisRecord,
  judge: Judge | undefined,
  decisionKey?: string,
): boolean {
  if (decisionKey !== undefined && isDecided(r)) return r.decisionKey === decisionKey;
  const judged = r.status === 'accepted' || (r.status === 'rejected' && r.reason === 'verification');
  const judgeFailed = r.status === 'failed' && (r.reason ?? '').startsWith('judge:');
  if (!judged && !judgeFailed) return true; // guardrails, none, backend failures: no verdict involved
  if (!judge) return r.verification === undefined && !judgeFailed;
  if (judgeFailed) return true; // same policy as other failures: --retry-failed redoes it
  return r.verification?.judge === judge.name && r.verification.threshold === judge.threshold;
}
