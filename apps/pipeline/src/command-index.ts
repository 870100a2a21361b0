/**
 * The `dv` command tree, loaded lazily: each top-level command's module (and the libraries it
 * imports: tfjs, onnxruntime-node, tokenizers, openai, hyparquet, the plotting stack) is
 * imported only when argv names that command, so `dv --help`, `dv --version` and each command
 * start without the others' modules. The names, order and summaries here are the ones of
 * `rootCommand` (command-tree/root.ts, the eager tree the tests and the API report use);
 * command-index.test.ts checks that they agree.
 */
import type { Command } from './cli-kit.js';

interface LazyCommand {
  name: string;
  summary: string;
  /** The command; `argv` (from the command's name on) may pick a lighter tree that serves it. */
  load: (argv: readonly string[]) => Promise<Command>;
}

export const commandIndex: readonly LazyCommand[] = [
  {
    name: 'reproduce',
    summary: 'run the whole reproduction end to end (cached DAG of stages) and write the report',
    load: async () => (await import('./commands/reproduce.js')).reproduceCommand,
  },
  {
    name: 'verdicts',
    summary: 'which findings hold across reproduce runs (their results.json, side by side)',
    load: async () => (await import('./commands/verdicts.js')).verdictsCommand,
  },
  {
    name: 'data',
    summary: 'build the mini world and load real datasets',
    load: async () => (await import('./command-tree/data.js')).dataCommand,
  },
  {
    name: 'synth',
    summary: 'synthesize complementary instructions (polarity reversal)',
    load: async () => (await import('./command-tree/synth.js')).synthCommand,
  },
  {
    name: 'train',
    summary: 'train bi-encoders: vocabulary, init, MLM pretraining, contrastive training on a mix',
    load: async () => (await import('./command-tree/train.js')).trainCommand,
  },
  {
    name: 'eval',
    summary: 'metrics and benchmark runs',
    // `dv eval trec ...` (the trec_eval replacement, timed against the C one) loads only the
    // metrics: `dv eval` with trec as its one subcommand.
    load: async (argv) =>
      argv[1] === 'trec'
        ? (await import('./command-tree/eval-trec-only.js')).evalTrecCommand
        : (await import('./command-tree/eval.js')).evalCommand,
  },
  {
    name: 'validate',
    summary: 'check JSONL files against a record schema (file:line errors)',
    load: async () => (await import('./commands/validate.js')).validateCommand,
  },
  {
    name: 'doctor',
    summary: 'report the runtime, package versions and which backends will be used',
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
];

export const rootInfo = {
  name: 'dv',
  summary: 'dual-view instruction-following retrieval: data, synthesis, training, evaluation',
  description: `dv: dual-view instruction-following retrieval.
Synthesize complementary instructions, train bi-encoders on both views, evaluate instruction
sensitivity (FollowIR p-MRR and friends), or reproduce the paper with 'dv reproduce'.`,
} as const;

/**
 * The root command for `argv`: the command argv names is the real one (its module imported),
 * every other one a stub with its name and summary (all the root's help prints of it).
 */
export async function lazyRootCommand(argv: readonly string[]): Promise<Command> {
  const wanted = argv[0];
  const subcommands = await Promise.all(
    commandIndex.map(async (c) => (c.name === wanted ? c.load(argv) : { name: c.name, summary: c.summary })),
  );
  return { ...rootInfo, subcommands };
}
