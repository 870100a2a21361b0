/** Small descriptive statistics for the stats report (deterministic, no timing). */

export interface Distribution {
  n: number;
  min: number;
  p25: number;
  median: number;
  p75: number;
  max: number;
  mean: number;
}

export function distribution(values: ReadonlyArray<number>): Distribution {
  if (values.length === 0) return { n: 0, min: 0, p25: 0, median: 0, p75: 0, max: 0, mean: 0 };
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]!;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return {
    n: s.length,
    min: s[0]!,
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    max: s.at(-1)!,
    mean: round(mean),
  };
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) {
    const k = key(it);
    out[k] = (out[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function wordsIn(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}
