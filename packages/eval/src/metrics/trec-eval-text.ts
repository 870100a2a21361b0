/**
 * trec_eval's text output, byte for byte: `%-22s\t%s\t%.4f\n` per line (measure, topic or
 * `all`, value), as trec_eval 9.0.8 prints it.
 *
 * - Rounding: C's printf rounds the exact binary value half to even, where JavaScript's
 *   `toFixed` rounds exact ties up: 0.03125 (exactly representable) prints 0.0312 in
 *   trec_eval and "0.0313" with toFixed. Non-ties are the same in both (both use the exact
 *   binary value), so only exact ties need care (issue 12 item 10).
 * - `-q` (per topic): lines grouped by topic, topics in strcmp order, all measures of a topic
 *   together, then the `all` lines (trec_eval -q), not grouped by measure.
 * - Measures in trec_eval's own order (its measure table, cutoffs ascending), not the order they
 *   were asked for: `ndcg_cut.10,map` prints map first, as `trec_eval -m ndcg_cut.10 -m map` does.
 */
import type { RunEvaluation } from './evaluate-run.js';
import { inTrecEvalOrder, type MeasureSpec } from './trec-measures.js';

/** `x` with `digits` decimals the way C's printf("%.*f") prints it (exact ties to even). */
export function formatTrecFloat(x: number, digits = 4): string {
  const up = x.toFixed(digits);
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return up;
  // 30 more digits than printed: a double tie has a short exact expansion (k / 2^n), and a
  // non-tie double is at least its ulp (far above 1e-30 for |x| < 1e21... at these scales) away.
  const long = Math.abs(x).toFixed(Math.min(100, digits + 30));
  const dot = long.indexOf('.');
  const tail = long.slice(dot + 1 + digits);
  if (!/^50*$/.test(tail)) return up;
  const kept = long.slice(0, dot + 1 + digits).replace(/\.$/, '');
  const lastDigit = Number(kept[kept.length - 1]);
  if (lastDigit % 2 === 1) return up; // odd: rounding up reaches the even neighbour
  return `${x < 0 ? '-' : ''}${kept}`;
}

/** Topic ids in trec_eval's order (strcmp on the bytes), not JavaScript's numeric-key order. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The text `trec_eval [-q] -m ...` prints for these measures. */
export function trecEvalText(
  e: RunEvaluation,
  specs: readonly MeasureSpec[],
  options: { perQuery?: boolean } = {},
): string {
  const line = (name: string, topic: string, v: number) =>
    `${name.padEnd(22)}\t${topic}\t${formatTrecFloat(v)}\n`;
  const ordered = inTrecEvalOrder(specs);
  let out = '';
  if (options.perQuery) {
    for (const qid of Object.keys(e.perQuery).sort(byBytes)) {
      const row = e.perQuery[qid]!;
      for (const s of ordered) out += line(s.name, qid, row[s.name]!);
    }
  }
  for (const s of ordered) out += line(s.name, 'all', e.means[s.name]!);
  return out;
}
