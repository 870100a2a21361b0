/**
 * Strict config files: every key a user writes in a `--config` JSON must be one the schema
 * reads. zod's plain `z.object` drops unknown keys without a word, so a misspelt
 * `"temprature": 0.05` used to run with the preset's value; this walker compares the raw file
 * against the zod schema it is parsed with (the schema is the one source of the known keys) and
 * reports each unknown key with its dotted path, the line where it is written, and the closest
 * known key of the same object (edit distance with swaps, case-insensitive; suggested only when
 * near enough to be a typo).
 *
 * Walked: objects (a loose object or a catchall accepts any key), wrappers (optional, nullable,
 * default, prefault, readonly, catch, pipe/transform input, lazy), arrays, tuples, records,
 * unions (the option with the fewest unknown keys wins: a value that fits one option is not
 * blamed for the others' keys) and intersections (the union of their keys).
 *
 * Example: `assertKnownConfigKeys(TrainerConfig, json, 'cfg.json', text)` throws
 * `DataError("unknown key 'optimizer.lrr' in cfg.json:3: did you mean 'lr'?")`.
 */
import type { z } from 'zod';
import { DataError } from './errors.js';

export interface UnknownConfigKey {
  /** Dotted path of the key, e.g. `train.optimizer.lrr` (array items as `[i]`). */
  path: string;
  key: string;
  /** The closest known key of the same object, when one is near enough to be a typo. */
  suggestion?: string;
  /** The keys that object accepts (sorted). */
  known: string[];
}

// zod 4 keeps a schema's definition under `_zod.def`; only the fields read here are typed.
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  valueType?: z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schemas a value may be checked against once wrappers are peeled (unions spread). */
function candidates(s: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 64) return [s];
  const d = defOf(s);
  if (WRAPPERS.has(d.type) && d.innerType) return candidates(d.innerType, depth + 1);
  if (d.type === 'pipe' && d.in) return candidates(d.in, depth + 1);
  if (d.type === 'lazy' && d.getter) return candidates(d.getter(), depth + 1);
  if (d.type === 'union' && d.options) return d.options.flatMap((o) => candidates(o, depth + 1));
  return [s];
}

interface Shape {
  shape: Record<string, z.ZodType>;
  /** Schema for keys outside `shape` (a loose object or catchall); undefined = unknown keys. */
  rest?: z.ZodType;
}

/** An object's keys (an intersection: both sides' keys); null for anything else. */
function shapeOf(s: z.ZodType): Shape | null {
  const d = defOf(s);
  if (d.type === 'object' && d.shape) {
    const rest = d.catchall && defOf(d.catchall).type !== 'never' ? d.catchall : undefined;
    return { shape: d.shape, ...(rest ? { rest } : {}) };
  }
  if (d.type === 'record' && d.valueType) return { shape: {}, rest: d.valueType };
  if (d.type === 'intersection' && d.left && d.right) {
    const parts = [...candidates(d.left), ...candidates(d.right)].map(shapeOf);
    if (parts.some((p) => p === null)) return null;
    const out: Shape = { shape: {} };
    for (const p of parts as Shape[]) {
      Object.assign(out.shape, p.shape);
      if (p.rest) out.rest = p.rest;
    }
    return out;
  }
  return null;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** Edit distance (insert, delete, substitute, swap of two neighbours; each 1). */
export function levenshtein(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The known key closest to `key` (case-insensitive edit distance), or undefined when none is
 * within a third of the longer name (at least 1, at most 3 edits): `learningRat` ->
 * `learningRate`, `temprature` -> `temperature`, `xyz` -> nothing.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = levenshtein(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(key.length, best.length) / 3)));
  return bestD <= limit ? best : undefined;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function walk(schema: z.ZodType, value: unknown, path: string, out: UnknownConfigKey[]): void {
  const cands = candidates(schema);
  if (isPlainObject(value)) {
    const shapes = cands.map(shapeOf).filter((s): s is Shape => s !== null);
    let best: UnknownConfigKey[] | null = null;
    for (const s of shapes) {
      const found: UnknownConfigKey[] = [];
      const known = Object.keys(s.shape).sort();
      for (const [k, v] of Object.entries(value)) {
        const inner = Object.hasOwn(s.shape, k) ? s.shape[k] : s.rest;
        if (inner) walk(inner, v, join(path, k), found);
        else {
          const suggestion = closestKey(k, known);
          found.push({ path: join(path, k), key: k, known, ...(suggestion ? { suggestion } : {}) });
        }
      }
      if (best === null || found.length < best.length) best = found;
      if (best.length === 0) break;
    }
    if (best) out.push(...best);
    return;
  }
  if (Array.isArray(value)) {
    for (const c of cands) {
      const d = defOf(c);
      if (d.type === 'array' && d.element) {
        for (const [i, v] of value.entries()) walk(d.element, v, `${path}[${i}]`, out);
        return;
      }
      if (d.type === 'tuple' && d.items) {
        value.forEach((v, i) => {
          const item = d.items![i] ?? d.rest ?? undefined;
          if (item) walk(item, v, `${path}[${i}]`, out);
        });
        return;
      }
    }
  }
}

/** Every key of `value` (a parsed config file) that `schema` does not read. */
export function unknownConfigKeys(schema: z.ZodType, value: unknown): UnknownConfigKey[] {
  const out: UnknownConfigKey[] = [];
  walk(schema, value, '', out);
  return out;
}

/** The 1-based line of the first `"key":` in a JSON text, if it is there. */
function lineOfKey(text: string, key: string): number | undefined {
  const needle = new RegExp(`"${key.replace(/[\\^$.*+?()[\]{}|"]/g, '\\$&')}"\\s*:`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => needle.test(l));
  return i === -1 ? undefined : i + 1;
}

/** One message per unknown key: `unknown key 'a.b' in FILE:LINE: did you mean 'c'?`. */
export function describeUnknownKeys(keys: readonly UnknownConfigKey[], file: string, text?: string): string {
  return keys
    .map((u) => {
      const line = text === undefined ? undefined : lineOfKey(text, u.key);
      const where = line === undefined ? file : `${file}:${line}`;
      const hint = u.suggestion
        ? `did you mean '${u.suggestion}'?`
        : u.known.length
          ? `known keys here: ${u.known.join(', ')}`
          : 'this object takes no keys';
      return `unknown key '${u.path}' in ${where}: ${hint}`;
    })
    .join('; ');
}

/**
 * Throws a `DataError` naming every unknown key of a config file (see `describeUnknownKeys`);
 * `text` is the file's JSON, used to name the line of each key.
 */
export function assertKnownConfigKeys(schema: z.ZodType, value: unknown, file: string, text?: string): void {
  const keys = unknownConfigKeys(schema, value);
  if (keys.length) throw new DataError(describeUnknownKeys(keys, file, text));
}
