/**
 * Which verdicts hold across reproduction runs (issue 26: "states which verdicts hold in all
 * three" - a full run, a second world, a fresh seed set). Each run's verdicts are the ones its
 * report computed (results.json `findings`, stats/verdict.ts); across runs, per finding and per
 * claim:
 *
 *   reproduced in all       every run says reproduced
 *   not reproduced in all   every run says not reproduced
 *   inconclusive in all     every run says inconclusive
 *   differs                 anything else (the counts are given)
 *
 * and, per claim, whether the observed mean difference has the claimed sign in every run
 * (`sameSign`): a weaker, descriptive fact the verdict does not use ("the Score cost is negative
 * in all three, its size is not"). Nothing here recomputes an interval: a run's verdict is its
 * own report's.
 */
import { z } from 'zod';

const VerdictSchema = z.enum(['reproduced', 'not reproduced', 'inconclusive']);

const IntervalMean = z.object({ mean: z.number().nullable() }).loose();

/** The part of a run's results.json (report-stage.ts) this reads. */
export const RunFindings = z
  .object({
    profile: z.string(),
    variant: z.string(),
    findings: z.array(
      z
        .object({
          id: z.string(),
          statement: z.string(),
          verdict: VerdictSchema,
          claims: z.array(
            z
              .object({
                a: z.string(),
                b: z.string(),
                measure: z.string(),
                direction: z.enum(['up', 'down']),
                backbone: z.enum(['first', 'second']),
                backboneName: z.string().nullable(),
                verdict: VerdictSchema,
                comparison: z.object({ perTopic: IntervalMean }).loose().nullable(),
              })
              .loose(),
          ),
        })
        .loose(),
    ),
  })
  .loose();
export type RunFindings = z.infer<typeof RunFindings>;
type Verdict = z.infer<typeof VerdictSchema>;

export type AcrossVerdict = 'reproduced in all' | 'not reproduced in all' | 'inconclusive in all' | 'differs';

export interface AcrossClaim {
  /** `ins-dv − ins-orig p-MRR > 0` */
  label: string;
  /** Per run: its verdict and mean difference over topics (x100, as the report's comparisons; null when not measured). */
  runs: { verdict: Verdict; mean: number | null }[];
  across: AcrossVerdict;
  /** The mean difference has the claimed sign in every run (false when a run did not measure it). */
  sameSign: boolean;
}

export interface AcrossFinding {
  id: string;
  statement: string;
  runs: Verdict[];
  across: AcrossVerdict;
  claims: AcrossClaim[];
}

/** The rule above, over one verdict per run. */
export function acrossVerdict(verdicts: readonly Verdict[]): AcrossVerdict {
  if (verdicts.length === 0) return 'differs';
  const first = verdicts[0]!;
  return verdicts.every((v) => v === first) ? `${first} in all` : 'differs';
}

/** "2 reproduced, 1 inconclusive": what a `differs` is made of. */
export function verdictCounts(verdicts: readonly Verdict[]): string {
  const order: Verdict[] = ['reproduced', 'not reproduced', 'inconclusive'];
  return order
    .map((v) => [v, verdicts.filter((x) => x === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`)
    .join(', ');
}

const claimLabel = (c: RunFindings['findings'][number]['claims'][number]) =>
  `${c.backbone === 'second' ? 'second backbone: ' : ''}${c.a} − ${c.b} ${c.measure} ${c.direction === 'up' ? '> 0' : '< 0'}`;

/**
 * The findings of several runs side by side. Runs must have evaluated the same findings with the
 * same claims (the same report code); a finding or claim one run lacks is an error naming the run
 * (`names[i]`, e.g. its file; default `run <i + 1>`).
 */
export function verdictsAcrossRuns(
  runs: readonly RunFindings[],
  names: readonly string[] = [],
): AcrossFinding[] {
  if (runs.length < 2) throw new Error('verdicts across runs need at least two runs');
  const nameOf = (i: number) => names[i] ?? `run ${i + 1}`;
  return runs[0]!.findings.map((f) => {
    const mine = runs.map((r, i) => {
      const g = r.findings.find((x) => x.id === f.id);
      if (!g) throw new Error(`${nameOf(i)} has no finding '${f.id}' (made by other report code?)`);
      if (g.claims.length !== f.claims.length)
        throw new Error(
          `${nameOf(i)}: finding '${f.id}' has ${g.claims.length} claims, ${nameOf(0)}'s ${f.claims.length}`,
        );
      return g;
    });
    const claims = f.claims.map((c, k): AcrossClaim => {
      const per = mine.map((g, i) => {
        const d = g.claims[k]!;
        if (d.a !== c.a || d.b !== c.b || d.measure !== c.measure || d.direction !== c.direction)
          throw new Error(
            `${nameOf(i)}: finding '${f.id}' claim ${k + 1} is not ${nameOf(0)}'s (${claimLabel(c)})`,
          );
        return { verdict: d.verdict, mean: d.comparison?.perTopic.mean ?? null };
      });
      const sameSign = per.every((p) => p.mean !== null && (c.direction === 'up' ? p.mean > 0 : p.mean < 0));
      return { label: claimLabel(c), runs: per, across: acrossVerdict(per.map((p) => p.verdict)), sameSign };
    });
    const verdicts = mine.map((g) => g.verdict);
    return { id: f.id, statement: f.statement, runs: verdicts, across: acrossVerdict(verdicts), claims };
  });
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/** The Markdown table of verdictsAcrossRuns: one row per finding, then one per claim. */
export function renderAcrossRuns(labels: readonly string[], findings: readonly AcrossFinding[]): string {
  const head = ['finding / claim', ...labels, 'across runs', 'claimed sign in every run'];
  const cell = (a: AcrossVerdict, vs: readonly Verdict[]) =>
    a === 'differs' ? `differs (${verdictCounts(vs)})` : a;
  const rows = findings.flatMap((f) => [
    [`**${f.statement}**`, ...f.runs.map((v) => `**${v}**`), `**${cell(f.across, f.runs)}**`, ''],
    ...f.claims.map((c) => [
      `${c.label}`,
      ...c.runs.map((r) => `${r.verdict} (${r.mean === null ? '-' : signed(r.mean)})`),
      cell(
        c.across,
        c.runs.map((r) => r.verdict),
      ),
      c.sameSign ? 'yes' : 'no',
    ]),
  ]);
  const held = findings.filter((f) => f.across === 'reproduced in all').length;
  const refuted = findings.filter((f) => f.runs.includes('not reproduced')).length;
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `${held} of ${findings.length} findings reproduced in all ${labels.length} runs; ${refuted} not reproduced in at least one. Each run's verdict is its own report's (stats/verdict.ts); a claim's figure is its mean difference over topics (x100).`,
  ].join('\n');
}
