/**
 * Matched-budget training mixes, as the paper defines them (shared/PAPER.md, "Data budgets"):
 * - Ins-orig: N original instruction examples.
 * - Ins-DV:   N/2 original examples + their N/2 complements (both views of N/2 pairs).
 * - All-orig: K original instruction examples + (N - K) general (no-instruction) examples.
 * - All-DV:   K/2 pairs (both views) + the same (N - K) general examples.
 * The instruction part K is held fixed across the All-* mixes (the paper: ~440k of ~880k, so
 * K = N/2 by default). Selections are nested so the mixes differ only in what is compared:
 * the Ins-DV pairs' originals are inside Ins-orig, the All-DV pairs' originals inside All-orig,
 * and both All-* mixes share one general sample. Every count is checked; a budget the data
 * cannot fill is a `DataError` naming the numbers.
 * Two control arms (ours, not the paper's; built only when asked for):
 * - Ins-orig-tm: the N/2 originals of Ins-DV's pairs, each twice (no complements): Ins-DV's
 *   topics at Ins-DV's budget, so Ins-DV minus it is what the complements add beyond repetition.
 * - All-orig-tm: the K/2 originals of All-DV's pairs, each twice, + the same general sample.
 * The second copy of an original is the same example under the id `<id>#2` (no `pairId`).
 */
import {
  createRng,
  DataError,
  type DataMix,
  DEFAULT_SEED,
  type DualViewExample,
  type Rng,
  type TrainingExample,
} from '@dv/core';

export type MixExample = TrainingExample | DualViewExample;

export interface MixInput {
  originals: TrainingExample[];
  complements: DualViewExample[];
  general?: TrainingExample[];
  /** N: total examples of every mix. */
  budget: number;
  /** K: instruction examples in the All-* mixes (default N/2). */
  instructionExamples?: number;
  seed?: number;
  /** Which mixes to build (default all four); general data is needed only for All-*. */
  mixes?: DataMix[];
}

export const allMixes: DataMix[] = ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'];

export interface MixCounts {
  total: number;
  original: number;
  complement: number;
  general: number;
  pairs: number;
}

export function countMix(examples: MixExample[]): MixCounts {
  const c = { total: examples.length, original: 0, complement: 0, general: 0, pairs: 0 };
  for (const e of examples) c[e.view]++;
  const originalsWithPair = new Set(
    examples.filter((e) => e.view === 'original' && e.pairId).map((e) => e.pairId),
  );
  c.pairs = examples.filter((e) => e.view === 'complement' && originalsWithPair.has(e.pairId)).length;
  return c;
}

function shuffled<T>(xs: T[], rng: Rng): T[] {
  return rng.shuffle(xs);
}

/** Pairs stay adjacent (original then complement) so a sequential reader sees both views together. */
function interleave(units: MixExample[][], rng: Rng): MixExample[] {
  return shuffled(units, rng).flat();
}

export function buildMixes(input: MixInput): Partial<Record<DataMix, MixExample[]>> {
  const n = input.budget;
  const k = input.instructionExamples ?? n / 2;
  const general = input.general ?? [];
  if (!Number.isInteger(n) || n <= 0 || n % 2 !== 0)
    throw new DataError(`budget N must be a positive even number (got ${n})`);
  if (!Number.isInteger(k) || k < 0 || k > n || k % 2 !== 0)
    throw new DataError(
      input.instructionExamples === undefined
        ? `budget N = ${n} gives the default K = N/2 = ${k} instruction examples, which is odd (All-DV needs pairs): use a budget divisible by 4 or set K (--instruction-examples) to an even number`
        : `instruction examples K must be an even number in [0, N] (got K=${k}, N=${n})`,
    );
  const rng = createRng(input.seed ?? DEFAULT_SEED);
  const compByOriginal = new Map(input.complements.map((c) => [c.originalId, c]));
  const paired = shuffled(
    input.originals.filter((o) => compByOriginal.has(o.id)),
    rng,
  );
  if (paired.length < n / 2)
    throw new DataError(
      `the matched mixes need N/2 = ${n / 2} accepted pairs (Ins-DV, and the originals every mix shares with it); the synthesis has ${paired.length}: lower the budget to at most ${2 * paired.length}`,
    );
  if (input.originals.length < n)
    throw new DataError(`Ins-orig needs N = ${n} original examples; there are ${input.originals.length}`);
  const which = input.mixes ?? allMixes;
  const needGeneral = which.some((m) => m.startsWith('all-'));
  if (needGeneral && general.length < n - k)
    throw new DataError(
      `All-* need N - K = ${n - k} general examples; there are ${general.length} (give general data, e.g. --general FILE, or build only the Ins-* mixes)`,
    );

  const pairUnits = (os: TrainingExample[]) => os.map((o) => [o, compByOriginal.get(o.id)!] as MixExample[]);
  /** Each original twice, as two units (the control arms' repetition in place of a complement). */
  const repeatedUnits = (os: TrainingExample[]) =>
    os.flatMap((o) => {
      const { pairId: _pair, ...rest } = o;
      return [[o], [{ ...rest, id: `${o.id}#2` }]] as MixExample[][];
    });
  const dvHalf = paired.slice(0, n / 2);
  const inDv = new Set(dvHalf.map((o) => o.id));
  const rest = shuffled(
    input.originals.filter((o) => !inDv.has(o.id)),
    rng,
  );
  const insOrig = [...dvHalf, ...rest.slice(0, n / 2)];
  const allDvPairs = dvHalf.slice(0, k / 2);
  const inAllDv = new Set(allDvPairs.map((o) => o.id));
  const allOrigInstr = [...allDvPairs, ...insOrig.filter((o) => !inAllDv.has(o.id)).slice(0, k / 2)];
  const gen = needGeneral ? shuffled(general, rng).slice(0, n - k) : [];

  const built: Record<DataMix, () => MixExample[]> = {
    'ins-orig': () =>
      interleave(
        insOrig.map((o) => [o]),
        rng.fork('ins-orig'),
      ),
    'ins-dv': () => interleave(pairUnits(dvHalf), rng.fork('ins-dv')),
    'all-orig': () =>
      interleave([...allOrigInstr.map((o) => [o]), ...gen.map((g) => [g])], rng.fork('all-orig')),
    'all-dv': () => interleave([...pairUnits(allDvPairs), ...gen.map((g) => [g])], rng.fork('all-dv')),
    'ins-orig-tm': () => interleave(repeatedUnits(dvHalf), rng.fork('ins-orig-tm')),
    'all-orig-tm': () =>
      interleave([...repeatedUnits(allDvPairs), ...gen.map((g) => [g])], rng.fork('all-orig-tm')),
  };
  const mixes: Partial<Record<DataMix, MixExample[]>> = {};
  for (const m of which) mixes[m] = built[m]();
  const expect: Record<DataMix, Omit<MixCounts, 'total'>> = {
    'ins-orig': { original: n, complement: 0, general: 0, pairs: 0 },
    'ins-dv': { original: n / 2, complement: n / 2, general: 0, pairs: n / 2 },
    'all-orig': { original: k, complement: 0, general: n - k, pairs: 0 },
    'all-dv': { original: k / 2, complement: k / 2, general: n - k, pairs: k / 2 },
    'ins-orig-tm': { original: n, complement: 0, general: 0, pairs: 0 },
    'all-orig-tm': { original: k, complement: 0, general: n - k, pairs: 0 },
  };
  for (const [name, ex] of Object.entries(mixes) as Array<[DataMix, MixExample[]]>) {
    const c = countMix(ex);
    const e = expect[name];
    if (
      c.total !== n ||
      c.original !== e.original ||
      c.complement !== e.complement ||
      c.general !== e.general ||
      c.pairs !== e.pairs
    )
      throw new Error(
        `mix ${name}: counts ${JSON.stringify(c)} do not match ${JSON.stringify({ total: n, ...e })}`,
      );
  }
  return mixes;
}
