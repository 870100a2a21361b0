/** `dv data stats`: the quality figures of a built mini world, and the issue-11 targets with --check. */
import { defineCommand, UsageError } from '../cli-kit.js';
import { miniFigures, miniTargets } from '../mini-figures.js';
import { printFigures } from '../mini-figures-text.js';

export const dataStatsCommand = defineCommand({
  name: 'stats',
  summary: 'quality figures of a built mini world (BM25 p-MRR, leakage, levers, reverser)',
  usage: 'DIR [--json] [--check]',
  description: `Reads the mini world in DIR and prints the figures that say whether its benchmark
measures instruction following: BM25 p-MRR and Score on the FollowIR-form splits (held-out and
seen wording), change-lever shares, the vacuous-og share, keyword leakage (the change's words in
removed vs kept docs), narrowing violations and self-contradictions, wording overlap with the
train seeds, InfoSearch-style leakage per lever, and the offline reverser's lever shares,
skeleton shares, masked distinctness, cue balance and text-only acceptance. --json prints them as
JSON; --check also lists the issue-11 targets and exits 1 when one fails.`,
  allowPositionals: true,
  options: {
    json: { type: 'boolean', description: 'print the figures as JSON' },
    check: { type: 'boolean', description: 'check the targets; exit 1 when one fails' },
  },
  async run(ctx) {
    const dir = ctx.positionals[0];
    if (!dir) throw new UsageError('give the mini world folder DIR');
    const f = await miniFigures(dir);
    const w = (line: string) => ctx.stdout.write(`${line}\n`);
    if (ctx.values.json === true) w(JSON.stringify(f, null, 2));
    else printFigures(w, f);
    if (ctx.values.check !== true) return 0;
    const targets = miniTargets(f);
    for (const t of targets) w(`${t.ok ? 'ok  ' : 'FAIL'} ${t.name}: ${t.value}`);
    return targets.every((t) => t.ok) ? 0 : 1;
  },
});
