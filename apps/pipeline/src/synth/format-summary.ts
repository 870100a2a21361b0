/**
 * The text summary of a synthesis run (`dv synth`, `dv synth merge`): seeds, recorded, pending,
 * accepted / none / rejected / failed, reasons and levers, verification, tokens and cost, a few
 * examples (I and I'), and where the outputs went.
 */
import type { RunSummary } from '@dv/synth';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function formatSummary(s: RunSummary): string {
  const lines: string[] = [];
  const stopped = s.run.stoppedBy ? `  (stopped early: ${s.run.stoppedBy})` : '';
  lines.push(`synth: ${s.seeds} seeds, ${s.recorded} recorded, ${s.pending} pending${stopped}`);
  lines.push(
    `  accepted ${s.accepted} (${pct(s.acceptanceRate)})  none ${s.none}  rejected ${s.rejected}  failed ${s.failed}` +
      (s.run.cachedThisRun ? `  (${s.run.cachedThisRun} from cache)` : ''),
  );
  const reasons = Object.entries(s.byReason).sort((a, b) => b[1] - a[1]);
  if (reasons.length) lines.push(`  by reason: ${reasons.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const levers = Object.entries(s.byLever).sort((a, b) => b[1] - a[1]);
  if (levers.length) lines.push(`  accepted by lever: ${levers.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const v = s.verification;
  if (v.judged)
    lines.push(
      `  verification (${v.judge}): ${v.passed}/${v.judged} passed (${pct(v.passRate ?? 0)}), mean score ${(v.meanScore ?? 0).toFixed(3)}`,
    );
  lines.push(
    `  tokens ${s.tokens.totalTokens} (prompt ${s.tokens.promptTokens}, completion ${s.tokens.completionTokens})` +
      (s.costUsd !== null ? `  cost $${s.costUsd.toFixed(4)}` : ''),
  );
  if (s.examples.length) {
    lines.push('  examples:');
    for (const e of s.examples) {
      lines.push(`    [${e.seedId}] q: ${e.query}`);
      lines.push(`      I : ${e.instruction}`);
      lines.push(
        `      I': ${e.newInstruction ?? '-'}  [${e.status}${e.reason ? `: ${e.reason}` : ''}${e.lever ? `, lever ${e.lever}` : ''}${e.verificationScore !== undefined ? `, verify ${e.verificationScore}` : ''}]`,
      );
    }
  }
  lines.push(`wrote ${Object.values(s.files).join(', ')} and manifest.json in ${s.outDir}`);
  return `${lines.join('\n')}\n`;
}
