/**
 * `dv eval trec`'s text (evaluateTrecFiles + trecEvalText) byte for byte against the real
 * trec_eval 9.0.8 binary (issue 24): measures in trec_eval's order whatever order they were
 * asked in, `-q` per-topic lines, ties, float32-only ties, unretrieved relevant docs, topics on
 * one side only. Optional: skipped with the reason when trec_eval can be neither found nor built
 * (test-utils/trec-eval-binary.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@dv/core';
import { afterAll, describe, expect, it } from 'vitest';
import { findTrecEval } from '../test-utils/trec-eval-binary.js';
import { evaluateTrecFiles } from './evaluate-trec-files.js';
import { trecEvalText } from './trec-eval-text.js';
import { parseMeasures } from './trec-measures.js';

const trecEval = findTrecEval();
if (!trecEval.path) console.log(`trec_eval byte-for-byte tests skipped: ${trecEval.note}`);

describe.skipIf(!trecEval.path)('dv eval trec text = trec_eval 9.0.8 output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-trec-binary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const rng = createRng(24);
  const run: string[] = [];
  const qrels: string[] = [];
  for (let t = 0; t < 40; t++) {
    const qid = t % 2 ? `q${t}` : String(t * 3); // strcmp order differs from numeric
    const n = 5 + rng.int(200);
    for (let i = 0; i < n; i++) {
      // ties (a few levels), float32-only ties (1 + 1e-9), exponents
      const s = [
        String(rng.int(20) / 8),
        String(1 + rng.int(2) * 1e-9),
        (rng.float() * 1e-3).toExponential(3),
      ][rng.int(3)];
      if (t !== 7) run.push(`${qid} Q0 d${rng.int(4)}x${i} ${i + 1} ${s} tag`);
    }
    for (let i = 0; i < n + 20; i += 1 + rng.int(4))
      qrels.push(`${qid} 0 d${rng.int(4)}x${i} ${rng.int(4) - 1}`);
  }
  run.push('only-in-run Q0 a 1 0.5 tag');
  const dedupe = (lines: string[]) => {
    const seen = new Set<string>();
    return lines.filter((l) => {
      const [q, , d] = l.split(' ');
      return !seen.has(`${q} ${d}`) && seen.add(`${q} ${d}`);
    });
  };
  const runPath = join(dir, 'run');
  const qrelsPath = join(dir, 'qrels');
  writeFileSync(runPath, `${dedupe(run).join('\n')}\n`);
  writeFileSync(qrelsPath, `${dedupe(qrels).join('\n')}\n`);

  it.each([
    ['ndcg_cut.10,map,recip_rank', false],
    ['ndcg_cut.10,map,recip_rank', true],
    ['recall.100,P.10,ndcg_cut.5,map_cut.10,ndcg,map,recip_rank', false],
    ['P.20,P.5,recall.10', true],
    ['P,ndcg_cut', false],
  ])('--measures %s (per query: %s)', async (list, perQuery) => {
    const specs = parseMeasures(list);
    const ours = trecEvalText(await evaluateTrecFiles(qrelsPath, runPath, specs), specs, { perQuery });
    // trec_eval's syntax: one -m per family, its cutoffs comma-separated (P.5,20)
    const families = new Map<string, string[]>();
    for (const s of specs) {
      const cut = list.split(',').find((m) => m === s.family || m.startsWith(`${s.family}.`))!;
      families.set(s.family, [
        ...(families.get(s.family) ?? []),
        ...(cut.includes('.') ? [String(s.k)] : []),
      ]);
    }
    const args = [...families].flatMap(([f, ks]) => ['-m', ks.length ? `${f}.${ks.join(',')}` : f]);
    const theirs = execFileSync(trecEval.path!, [...(perQuery ? ['-q'] : []), ...args, qrelsPath, runPath], {
      encoding: 'utf8',
    });
    expect(ours).toBe(theirs);
  });
});
