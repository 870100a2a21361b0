/**
 * Deep merge of configuration layers, the one implementation: a preset or overlay, then a
 * `--config FILE`, then flags. Plain objects merge member by member; arrays, scalars and null
 * replace whatever was there (a list is one setting: `seeds: [13]` over `[13, 42, 1234]` is
 * `[13]`, never a mix of both). An `undefined` member of `over` keeps the base's value, so a
 * partial overlay written in TypeScript can leave fields out either way.
 *
 * Example: `mergeConfig({ a: { x: 1, y: 2 }, s: [1, 2] }, { a: { y: 3 }, s: [9] })` is
 * `{ a: { x: 1, y: 3 }, s: [9] }`. Neither input is modified.
 */
const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

export function mergeConfig<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeConfig(base[k], v);
  return out as T;
}
