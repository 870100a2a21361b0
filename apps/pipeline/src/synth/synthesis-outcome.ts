/**
 * The outcome of a `dv synth` run: its notes on stderr and its exit code. 0 done; 1 every seed
 * failed, or the endpoint refused the key or cannot be reached; 3 partial: some seeds failed
 * (rerun with --retry-failed), seeds are pending, or the cost cap stopped the run. With
 * `--json` the summary (or the batch export) is one JSON object on stdout.
 */
import type { SynthesisRunConfig } from '@dv/core';
import type { BatchImportReport, RunSummary, SynthesisRun } from '@dv/synth';

/** What a synthesis run's `run()` resolves to. */
type SynthesisRunResult = Awaited<ReturnType<SynthesisRun['run']>>;

import { EXIT } from '../cli-kit.js';
import { formatSummary } from './format-summary.js';

/** Exit code of a run the cost cap stopped: outputs are consistent but seeds remain pending. */
export const EXIT_INCOMPLETE = EXIT.partial;

/**
 * 0 when no seed failed; 1 when every recorded seed failed (nothing usable was produced);
 * 3 when some failed, with how many and how to retry. `none` and `rejected` are answers, not
 * failures (issue 12 item 3: `dv synth` exited 0 when every seed failed).
 */
export function synthExitCode(s: RunSummary, stderr: NodeJS.WritableStream): number {
  if (s.failed === 0) return EXIT.ok;
  const reasons = Object.entries(s.byReason)
    .filter(
      ([r]) =>
        r.startsWith('backend:') ||
        r.startsWith('unparsable:') ||
        r.startsWith('judge:') ||
        r === 'no-instruction-negative',
    )
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  const retry = `see ${s.files.failures ?? 'failures.jsonl'} in ${s.outDir}; rerun with --retry-failed to try them again`;
  if (s.failed === s.recorded) {
    stderr.write(`failed: all ${s.failed} seeds failed (${reasons}); ${retry}.\n`);
    return EXIT.failed;
  }
  stderr.write(`partial: ${s.failed} of ${s.recorded} seeds failed (${reasons}); ${retry}.\n`);
  return EXIT.partial;
}

/**
 * The notes after a run and its exit code: the cost cap stopped it (3, rerun with a higher
 * cap), the endpoint refused the key or is unreachable (1), seeds left pending (3), else
 * `synthExitCode`'s verdict on the failures.
 */
export function reportOutcome(
  summary: RunSummary,
  config: SynthesisRunConfig,
  batch: BatchImportReport | undefined,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): number {
  const { run, pending } = summary;
  const cachedFailed = run.cachedFailedThisRun ?? 0;
  if (cachedFailed > 0)
    stderr.write(
      `note: ${cachedFailed} seeds reuse failed records of an earlier run in ${config.outDir} (not asked again); pass --retry-failed to try them again.\n`,
    );
  if (run.reverifiedThisRun)
    stderr.write(
      `note: ${run.reverifiedThisRun} cached answers were judged again (the judge settings changed).\n`,
    );
  if (batch) {
    const unmatched = batch.unmatchedIds();
    stdout.write(`batch-import: ${batch.matched}/${batch.lines} output lines matched a seed\n`);
    if (unmatched.length)
      stderr.write(
        `warning: ${unmatched.length} batch output lines match no request of these seeds/settings (first: ${unmatched[0]})\n`,
      );
  }
  if (run.stoppedBy === 'cost-cap') {
    stderr.write(
      `stopped: cost cap $${config.synthesis.costCapUsd} reached; ${pending} seeds pending. Rerun with a higher --cost-cap to continue.\n`,
    );
    return EXIT_INCOMPLETE;
  }
  if (run.stoppedBy?.startsWith('auth:')) {
    stderr.write(
      `stopped: the endpoint refused the API key (${run.stoppedBy.slice(5)}); set $${config.synthesis.apiKeyEnv} (or --api-key-env) and rerun to continue.\n`,
    );
    return EXIT.failed;
  }
  if (run.stoppedBy === 'unreachable') {
    stderr.write(
      `stopped: ${run.stopDetail ?? 'the endpoint is unreachable'}. ${pending} seeds are pending (nothing recorded for them); start the server or fix --base-url and rerun to continue.\n`,
    );
    return EXIT.failed;
  }
  if (pending > 0 && !batch) {
    stderr.write(
      `partial: ${pending} seeds have no record (the endpoint could not be reached for them); rerun to continue.\n`,
    );
    return EXIT.partial;
  }
  return synthExitCode(summary, stderr);
}

/** Prints a finished run (`--json`: one object; else the summary) and returns its exit code. */
export function printSynthesisResult(
  result: SynthesisRunResult,
  config: SynthesisRunConfig,
  o: { json: boolean; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): number {
  if (o.json) {
    o.stdout.write(
      `${JSON.stringify(
        result.kind === 'exported'
          ? { kind: 'batch-export', requests: result.requests, skipped: result.skipped, files: result.files }
          : {
              kind: 'summary',
              ...result.summary,
              ...(result.batch
                ? { batchImport: { matched: result.batch.matched, lines: result.batch.lines } }
                : {}),
            },
      )}\n`,
    );
    if (result.kind === 'exported') return 0;
    // the notes and the exit code as without --json, the batch-import line on stderr
    return reportOutcome(result.summary, config, result.batch, o.stderr, o.stderr);
  }
  if (result.kind === 'exported') {
    o.stdout.write(
      `batch-export: ${result.requests} requests (${result.skipped} seeds already recorded or without a negative) -> ${result.files.join(', ')}\n` +
        `Run them with the OpenAI Batch API or vLLM's run_batch, then: dv synth --backend batch-import --batch-output OUTPUT.jsonl --seeds ${config.seedsPath} --out ${config.outDir} --model ${config.synthesis.model}\n`,
    );
    return 0;
  }
  o.stdout.write(formatSummary(result.summary));
  return reportOutcome(result.summary, config, result.batch, o.stdout, o.stderr);
}
