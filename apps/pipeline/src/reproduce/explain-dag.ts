/**
 * `pnpm reproduce --explain`: what a run would do, stage by stage, with no work done. Each
 * stage's key is computed as the runner computes it (stage-key.ts) and compared with the one its
 * `stage.json` records; a mismatch is explained part by part (@dv/core staleReasons: changed
 * code, changed inputs, the config paths that differ).
 *
 *   up to date  the recorded key matches and every recorded output is there: kept
 *   stale       a recorded key of other parts: reruns, and the reasons say which parts changed
 *   missing     never finished here (an interrupted stage with the same key resumes)
 *   pending     its own parts match, but an input stage reruns: it reruns only if that input's
 *               outputs come out different (their digests are what it is keyed on)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCodeDigestMemo, staleReasons } from '@dv/core';
import {
  forcedStages,
  keyOfStage,
  outputsProblem,
  readStageRecord,
  stageDir,
  topologicalOrder,
} from './run-dag.js';
import type { StageRecord, StageSpec } from './stage.js';

export type ExplainStatus = 'up to date' | 'stale' | 'missing' | 'pending';

export interface StageExplanation {
  id: string;
  status: ExplainStatus;
  /** What a run would do: keep, run, resume, or run only if an input's outputs change. */
  action: 'keep' | 'run' | 'resume' | 'run if inputs change';
  /** Why (stale parts, missing outputs, the input stages it waits on). */
  reasons: string[];
  key: string;
  recordedKey: string | null;
}

export interface ExplainOptions {
  runDir: string;
  stages: readonly StageSpec[];
  from?: string;
  only?: string;
}

/** "code of L changed" + which packages inside L changed (their own files or dependency versions). */
function withChangedPackages(
  reason: string,
  recorded: StageRecord,
  now: Record<string, { parts: Record<string, string> }>,
): string {
  const m = /^code of (.+) changed$/.exec(reason);
  const before = m ? recorded.code?.[m[1]!]?.parts : undefined;
  const after = m ? now[m[1]!]?.parts : undefined;
  if (!before || !after) return reason;
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((p) => before[p] !== after[p])
    .sort();
  return changed.length ? `${reason} (in ${changed.join(', ')})` : reason;
}

export function explainDag(o: ExplainOptions): StageExplanation[] {
  clearCodeDigestMemo();
  const order = topologicalOrder(o.stages);
  const forced = forcedStages(order, o.from, o.only);
  const records = new Map<string, StageRecord | null>();
  const rerun = new Set<string>();
  const out: StageExplanation[] = [];
  for (const spec of order) {
    const dir = stageDir(o.runDir, spec.id);
    const existing = readStageRecord(dir);
    records.set(spec.id, existing);
    // inputs keyed on their recorded output digests: what they hold now
    const deps: Record<string, string> = {};
    const unknownDeps: string[] = [];
    for (const d of spec.deps) {
      const r = records.get(d);
      if (r) deps[d] = r.outputDigest;
      else unknownDeps.push(d);
    }
    const keyed = keyOfStage(spec, deps);
    const rerunDeps = spec.deps.filter((d) => rerun.has(d));
    const base = { id: spec.id, key: keyed.key, recordedKey: existing?.key ?? null };
    let e: StageExplanation;
    if (!existing) {
      const keyPath = join(dir, '.stage-key');
      const partial = existsSync(keyPath) && readFileSync(keyPath, 'utf8').trim() === keyed.key;
      e = {
        ...base,
        status: 'missing',
        action: partial && !forced.has(spec.id) ? 'resume' : 'run',
        reasons: [
          partial ? 'interrupted under the same key: resumes from what it left' : 'not run in this folder',
        ],
      };
    } else if (existing.key !== keyed.key || unknownDeps.length > 0) {
      const reasons = staleReasons(existing.parts, keyed.parts)
        .filter((r) => !unknownDeps.some((d) => r === `input ${d} dropped`))
        .map((r) => withChangedPackages(r, existing, keyed.code));
      if (reasons.length === 0 && rerunDeps.length > 0)
        e = {
          ...base,
          status: 'pending',
          action: 'run if inputs change',
          reasons: [`input ${rerunDeps.join(', ')} reruns; this stage reruns only if its outputs differ`],
        };
      else
        e = { ...base, status: 'stale', action: 'run', reasons: reasons.length ? reasons : ['key differs'] };
    } else if (outputsProblem(dir, existing) !== null) {
      e = { ...base, status: 'stale', action: 'run', reasons: [outputsProblem(dir, existing)!] };
    } else if (rerunDeps.length > 0) {
      e = {
        ...base,
        status: 'pending',
        action: 'run if inputs change',
        reasons: [`input ${rerunDeps.join(', ')} reruns; this stage reruns only if its outputs differ`],
      };
    } else e = { ...base, status: 'up to date', action: 'keep', reasons: [] };
    if (forced.has(spec.id) && e.action !== 'run')
      e = { ...e, action: 'run', reasons: [o.only ? '--only' : '--from', ...e.reasons] };
    if (e.action !== 'keep') rerun.add(spec.id);
    out.push(e);
  }
  return out;
}

/** The explanation as a table (one line per stage) and a summary line. */
export function renderExplanation(rows: readonly StageExplanation[]): string {
  const w = Math.max(5, ...rows.map((r) => r.id.length));
  const lines = rows.map((r) =>
    `${r.id.padEnd(w)}  ${r.status.padEnd(10)}  ${r.action.padEnd(19)}  ${r.reasons.join('; ')}`.trimEnd(),
  );
  const count = (a: StageExplanation['action']) => rows.filter((r) => r.action === a).length;
  return [
    `${'stage'.padEnd(w)}  ${'status'.padEnd(10)}  ${'a run would'.padEnd(19)}  why`,
    ...lines,
    '',
    `${count('keep')} kept, ${count('run')} to run, ${count('resume')} to resume, ${count('run if inputs change')} rerun only if their inputs' outputs change`,
  ].join('\n');
}
