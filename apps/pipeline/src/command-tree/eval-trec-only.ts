/**
 * `dv eval` with `trec` as its one subcommand: what `dv eval trec ...` needs (command-index.ts
 * loads this instead of command-tree/eval.ts, so the trec_eval replacement starts without the
 * benchmark registry, encoders, parquet and tfjs).
 */
import type { Command } from '../cli-kit.js';
import { evalTrecCommand as trec } from '../commands/eval-trec.js';

export const EVAL_SUMMARY = 'metrics and benchmark runs';

export const evalTrecCommand: Command = { name: 'eval', summary: EVAL_SUMMARY, subcommands: [trec] };
