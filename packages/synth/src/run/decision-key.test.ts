/**
 * The journal's decision key (issue 25): records are decided (parse, guardrails, verdict) under
 * a key holding the judge settings, the guardrail options and the code digest of the deciding
 * code (`DECISION_CODE`). Other deciding code (injected with `decisionCode`; no source edited)
 * decides every cached answer again without asking the backend; the same code reuses them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCodeDigestMemo, codeDigest, readJsonlAll, SynthesisRecord } from '@dv/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOfflineReverser } from '../backends/offline-reverser.js';
import type { SynthesisBackend } from '../backends/synthesis-backend.js';
import { LOG_FILE, runSynthesis } from '../run-synthesis.js';
import { templates } from '../template-registry.js';
import { plainSeeds } from '../test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from '../test-utils/write-seeds.js';
import { createLexicalJudge } from '../verify/lexical-judge.js';
import { DECISION_CODE, decisionKey } from './decision-key.js';

const template = templates['polarity-reversal'];

function counting(): SynthesisBackend & { calls: number } {
  const inner = createOfflineReverser({ model: 'offline-reverser' });
  const b = {
    name: inner.name,
    model: inner.model,
    stochastic: inner.stochastic,
    calls: 0,
    synthesize: (task: Parameters<SynthesisBackend['synthesize']>[0], signal?: AbortSignal) => {
      b.calls++;
      return inner.synthesize(task, signal);
    },
  };
  return b;
}

describe('synthesis decision key', () => {
  let seedsPath: string;
  beforeAll(() => {
    seedsPath = writeSeeds(plainSeeds(6));
  });
  const judge = createLexicalJudge(0.25);
  const run = (outDir: string, backend: SynthesisBackend, decisionCode?: Record<string, string>) =>
    runSynthesis({
      seedsPath,
      outDir,
      backend,
      template,
      model: 'offline-reverser',
      judge,
      progressMode: 'silent',
      ...(decisionCode ? { decisionCode } : {}),
    });

  it('records carry the real key: judge settings, guardrails and the deciding code digest', async () => {
    const outDir = tempDir();
    await run(outDir, counting());
    const records = await readJsonlAll(join(outDir, LOG_FILE), SynthesisRecord);
    clearCodeDigestMemo();
    const code = { '@dv/synth:decide': codeDigest(DECISION_CODE, import.meta.url).digest };
    const want = decisionKey({ judge }, code);
    expect(records.length).toBe(6);
    for (const r of records) expect(r.decisionKey).toBe(want);
    expect(decisionKey({ judge }, { '@dv/synth:decide': 'other' })).not.toBe(want);
    expect(decisionKey({ judge: createLexicalJudge(0.5) }, code)).not.toBe(want);
  });

  it('other deciding code decides the cached answers again (no backend call); the same code reuses them', async () => {
    const outDir = tempDir();
    const A = { '@dv/synth:decide': 'a'.repeat(64) };
    const B = { '@dv/synth:decide': 'b'.repeat(64) };
    const b = counting();
    const first = await run(outDir, b, A);
    expect(b.calls).toBe(6);
    const same = await run(outDir, b, A);
    expect(same.run).toMatchObject({ cachedThisRun: 6, reverifiedThisRun: 0 });
    const other = await run(outDir, b, B);
    expect(other.run.reverifiedThisRun).toBe(6);
    expect(b.calls).toBe(6); // decided from the journal's raw answers: nothing asked again
    expect(other.accepted).toBe(first.accepted);
    const keyB = decisionKey({ judge }, B);
    const records = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    for (const r of records) expect(r.decisionKey).toBe(keyB);
    expect((await run(outDir, b, B)).run.reverifiedThisRun).toBe(0);

    // a journal written before decision keys: every decided record is decided again
    const log = join(outDir, LOG_FILE);
    const legacy = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const { decisionKey: _k, ...r } = JSON.parse(l);
        return JSON.stringify(r);
      });
    writeFileSync(log, `${legacy.join('\n')}\n`);
    expect((await run(outDir, b, B)).run.reverifiedThisRun).toBe(6);
    expect(b.calls).toBe(6);
  });
});
