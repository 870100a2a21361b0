#!/usr/bin/env node
/**
 * Paired difference of two trained arms that may live in different run folders (the lever
 * measurements of issue 26: a longer MLM pretraining, more hard negatives), computed as the
 * report computes its comparisons (apps/pipeline stats/t-interval.ts): per topic, each arm's
 * FollowIR-form value averaged over its seeds, then a t interval of the difference over topics;
 * over seeds, paired by seed (the same seed-* folders in both arms: the t interval of the
 * per-seed differences), else the Welch interval of the per-seed means. Both metrics: p-MRR and Score (nDCG@5
 * under the original instruction), x100.
 *
 * Usage: node scripts/compare-arms.mjs RUN_A:MIX_A RUN_B:MIX_B [--backbone mini-bert] [--json]
 * An arm is every `stages/eval/<backbone>/<mix>/seed-*` of its run folder; `untrained` is the
 * pretrained backbone before fine-tuning. Needs `pnpm build`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { meanCi, pairedDiffCi, welchDiffCi } = await import(
  join(root, 'apps/pipeline/dist/reproduce/stats/t-interval.js')
);

const args = process.argv.slice(2);
const arms = args.filter((a) => !a.startsWith('--') && a.includes(':'));
const bi = args.indexOf('--backbone');
const backbone = bi >= 0 ? args[bi + 1] : 'mini-bert';
if (arms.length !== 2) {
  process.stderr.write(
    'usage: node scripts/compare-arms.mjs RUN_A:MIX_A RUN_B:MIX_B [--backbone mini-bert] [--json]\n',
  );
  process.exit(2);
}

const METRICS = { pMrr: 'p-MRR', score: 'og_ndcg_cut_5' };

function loadArm(spec) {
  const i = spec.lastIndexOf(':');
  const run = spec.slice(0, i);
  const mix = spec.slice(i + 1);
  const dir = join(run, 'stages', 'eval', backbone, mix);
  const file = (d) => join(d, 'followir', 'mini-followir.json');
  const seedDirs =
    mix === 'untrained'
      ? [dir]
      : existsSync(dir)
        ? readdirSync(dir)
            .filter((s) => s.startsWith('seed-'))
            .map((s) => join(dir, s))
        : [];
  const done = seedDirs.filter((d) => existsSync(file(d)));
  const results = done.map((d) => JSON.parse(readFileSync(file(d), 'utf8')));
  const seedNames = done.map((d) => basename(d));
  if (!results.length) {
    process.stderr.write(`${spec}: no evaluated seeds under ${dir}\n`);
    process.exit(1);
  }
  return { spec, seeds: results.length, results, seedNames };
}

function summarise(arm, key) {
  const perSeed = arm.results.map((r) => {
    const v = Object.values(r.perQuery).map((q) => q[key]);
    return (100 * v.reduce((a, b) => a + b, 0)) / v.length;
  });
  const bySeed = Object.fromEntries(arm.seedNames.map((s, i) => [s, perSeed[i]]));
  const perTopic = {};
  for (const r of arm.results)
    for (const [topic, q] of Object.entries(r.perQuery))
      perTopic[topic] = (perTopic[topic] ?? 0) + (100 * q[key]) / arm.results.length;
  return { perSeed, bySeed, perTopic };
}

const [a, b] = arms.map(loadArm);
const paired =
  a.seedNames.length === b.seedNames.length &&
  a.seedNames.every((s) => b.seedNames.includes(s)) &&
  !a.spec.endsWith(':untrained');
const out = {
  backbone,
  a: a.spec,
  b: b.spec,
  seeds: [a.seeds, b.seeds],
  seedPairing: paired ? 'paired' : 'welch',
  metrics: {},
};
for (const [name, key] of Object.entries(METRICS)) {
  const sa = summarise(a, key);
  const sb = summarise(b, key);
  out.metrics[name] = {
    a: meanCi(sa.perSeed),
    b: meanCi(sb.perSeed),
    perTopic: pairedDiffCi(sa.perTopic, sb.perTopic),
    // as the report: paired by seed when both arms ran the same seeds, else Welch
    overSeeds: paired ? pairedDiffCi(sa.bySeed, sb.bySeed) : welchDiffCi(sa.perSeed, sb.perSeed),
    overSeedsUnpaired: welchDiffCi(sa.perSeed, sb.perSeed),
  };
}
if (args.includes('--json')) process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
else {
  const f = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
  const ci = (i) => `[${f(i.lo)}, ${f(i.hi)}]`;
  process.stdout.write(
    `${a.spec} (${a.seeds} seeds) - ${b.spec} (${b.seeds} seeds), ${backbone}, FollowIR-form x100\n`,
  );
  process.stdout.write(
    `| metric | A | B | A - B | 95% CI over topics | 95% CI over seeds (${out.seedPairing}) |\n|---|---|---|---|---|---|\n`,
  );
  for (const [name, m] of Object.entries(out.metrics))
    process.stdout.write(
      `| ${name} | ${f(m.a.mean)} | ${f(m.b.mean)} | ${f(m.perTopic.mean)} | ${ci(m.perTopic)} (${m.perTopic.n}) | ${ci(m.overSeeds)} |\n`,
    );
}
