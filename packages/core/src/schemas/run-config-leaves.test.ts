/**
 * One declaration per setting, each documented: walks the `RunConfig` schema and fails when a
 * leaf setting name with a default appears under two paths that are not listed below as
 * intentionally separate settings (issue 23: `hardNegatives` was declared in three schemas with
 * default 30 and three meanings), and when a leaf has no `.describe()` text (the CLI help is
 * generated from it).
 */
import { describe, expect, it } from 'vitest';
import { RunConfig } from './run-config.js';
import { configLeaves } from './run-config-leaves.js';

/**
 * Setting names declared under more than one path on purpose: the paths, and why they are
 * different settings. A new same-name leaf with a default fails until it is listed here with a
 * reason (or, better, given its own name).
 */
const INTENTIONAL_SAME_NAME: Record<string, { paths: string[]; reason: string }> = {
  seed: {
    paths: ['world.seed', 'mixes.seed', 'pretrain.seed', 'train.seed'],
    reason: 'each job draws from its own seeded stream (world building, mix sampling, MLM, fine-tuning)',
  },
  hardNegatives: {
    paths: ['world.hardNegatives', 'train.batch.hardNegatives'],
    reason:
      'mined and written per seed when the world is built (data on disk) vs used per query by the trainer (at most); renaming either changes bytes of the results (world stats.json, run configs)',
  },
  generalExamples: {
    paths: ['world.generalExamples', 'paper.seeds.generalExamples'],
    reason: 'general examples the mini world generates vs Promptriever rows the paper profile keeps',
  },
  temperature: {
    paths: ['synthesis.temperature', 'train.loss.temperature'],
    reason: "the synthesis LLM's sampling temperature vs InfoNCE's softmax temperature tau",
  },
  name: {
    paths: [
      'pretrain.optimizer.name',
      'pretrain.schedule.name',
      'train.loss.name',
      'train.optimizer.name',
      'train.schedule.name',
    ],
    reason: 'the algorithm of each concern (loss, optimiser, schedule)',
  },
  ...Object.fromEntries(
    (
      [
        ['optimizer', ['weightDecay', 'beta1', 'beta2', 'epsilon']],
        ['schedule', ['warmupRatio', 'decayRatio']],
        ['checkpoint', ['everySteps', 'keepLast']],
      ] as const
    ).flatMap(([slice, names]) =>
      names.map((n) => [
        n,
        {
          paths: [`pretrain.${slice}.${n}`, `train.${slice}.${n}`],
          reason: `MLM pretraining and fine-tuning are two jobs, each with its own ${slice} (the same schema, @dv/core training-slices.ts)`,
        },
      ]),
    ),
  ),
  logEverySteps: {
    paths: ['pretrain.logEverySteps', 'train.logEverySteps'],
    reason: 'the log cadence of each of the two training jobs',
  },
  maxLength: {
    paths: ['pretrain.maxLength', 'eval.maxLength'],
    reason: 'MLM sequence length vs tokens per text when encoding for evaluation',
  },
  batchSize: {
    paths: ['pretrain.batchSize', 'eval.batchSize'],
    reason:
      'sequences per MLM batch vs texts per evaluation encoding batch (fine-tuning: train.batch.batchSize)',
  },
};

const leaves = configLeaves(RunConfig);

describe('RunConfig: one declaration per setting', () => {
  it('walks the whole tree', () => {
    const paths = leaves.map((l) => l.path);
    for (const p of [
      'world.hardNegatives',
      'train.batch.hardNegatives',
      'eval.benchmarks',
      'paper.models[].repo',
    ])
      expect(paths).toContain(p);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('no setting name with a default is declared under two paths unless listed with a reason', () => {
    const byName = new Map<string, string[]>();
    for (const l of leaves.filter((x) => x.hasDefault))
      byName.set(l.name, [...(byName.get(l.name) ?? []), l.path]);
    const repeated = Object.fromEntries(
      [...byName].filter(([, ps]) => ps.length > 1).map(([n, ps]) => [n, ps.sort()]),
    );
    const listed = Object.fromEntries(
      Object.entries(INTENTIONAL_SAME_NAME).map(([n, { paths }]) => [n, [...paths].sort()]),
    );
    expect(repeated).toEqual(listed);
    for (const { reason } of Object.values(INTENTIONAL_SAME_NAME)) expect(reason.length).toBeGreaterThan(20);
  });

  it('every leaf has a .describe() text', () => {
    expect(leaves.filter((l) => !l.description?.trim()).map((l) => l.path)).toEqual([]);
  });

  it('the walker sees defaults and descriptions through wrappers (golden)', async () => {
    const { z } = await import('zod');
    const s = z.object({
      a: z.number().default(1).describe('A'),
      b: z.object({ c: z.string().optional().describe('C') }).prefault({}),
      d: z.array(z.object({ e: z.boolean() })),
    });
    expect(configLeaves(s)).toEqual([
      { path: 'a', name: 'a', hasDefault: true, description: 'A' },
      { path: 'b.c', name: 'c', hasDefault: false, description: 'C' },
      { path: 'd[].e', name: 'e', hasDefault: false, description: undefined },
    ]);
  });
});
