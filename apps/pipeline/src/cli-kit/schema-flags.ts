/**
 * Flags from zod schemas. A flag table maps each flag to a setting path of a slice schema
 * (`temperature: 'synthesis.temperature'`, with a short alias if any); everything else comes
 * from the schema: the option's kind (number, string, boolean, enum, list), its help text
 * (`.describe()`, else the table's `help` fallback, else the path), its range (the zod checks:
 * `z.number().int().positive()` is "a positive integer") and its default (shown in help).
 * The given flags become one partial config (`DeepPartial<z.infer<S>>`), each value checked by
 * its leaf schema; the command merges it over its preset and parses the whole config once, and
 * `describeIssues` names the flag of each issue of that parse.
 *
 *   const flags = schemaFlags(SynthesisRunConfig, { temperature: 'synthesis.temperature', limit: 'limit' });
 *   // dv synth --temperature 5  ->  "--temperature must be a number from 0 to 2, got '5'"
 */
import type { z } from 'zod';
import { describeNumber, type NumberSpec } from './parse-number.js';
import { UsageError } from './usage-error.js';

/** Where a flag goes: a setting path ('batch.steps'), or the path with a short alias. */
export type FlagTarget =
  | string
  | {
      readonly path: string;
      readonly short?: string;
      /** The placeholder in help (`--seeds FILE`); derived from the kind when absent. */
      readonly valueName?: string;
      /** Help text for a leaf without `.describe()` (the schema's text wins when it has one). */
      readonly help?: string;
    };
export type FlagTable = Readonly<Record<string, FlagTarget>>;

export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

export interface SchemaFlagSet<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly table: FlagTable;
  /** Values shown as "(default: ...)" in help, read at the flags' paths (e.g. a preset's config). */
  readonly defaults?: unknown;
}

/** The flags of `table` over `schema`; throws at once when a path names no setting. */
export function schemaFlags<S extends z.ZodType>(
  schema: S,
  table: FlagTable,
  options: { defaults?: DeepPartial<z.input<S>> } = {},
): SchemaFlagSet<S> {
  for (const [flag, target] of Object.entries(table))
    if (!settingAt(schema, pathOf(target)))
      throw new Error(`flag --${flag}: '${pathOf(target)}' is not a setting of the schema`);
  return Object.freeze({ schema, table, ...(options.defaults ? { defaults: options.defaults } : {}) });
}

/** `table` with every path under `prefix` (flags of a slice inside a command's settings). */
export function under<const T extends FlagTable>(prefix: string, table: T): FlagTable {
  return Object.fromEntries(
    Object.entries(table).map(([f, t]) => [
      f,
      typeof t === 'string' ? `${prefix}.${t}` : { ...t, path: `${prefix}.${t.path}` },
    ]),
  );
}

export const pathOf = (t: FlagTarget): string => (typeof t === 'string' ? t : t.path);

interface ZodInternals {
  _zod: {
    def: { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; [k: string]: unknown };
  };
  description?: string;
}
const defOf = (s: z.ZodType) => (s as unknown as ZodInternals)._zod.def;
const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch']);

/** The schema of the setting at `path` (through defaults, optionals...), or undefined. */
export function settingAt(schema: z.ZodType, path: string): z.ZodType | undefined {
  let at: z.ZodType | undefined = schema;
  for (const key of path.split('.')) {
    while (at && WRAPPERS.has(defOf(at).type)) at = defOf(at).innerType;
    const shape: Record<string, z.ZodType> | undefined =
      at && defOf(at).type === 'object' ? (defOf(at).shape as Record<string, z.ZodType>) : undefined;
    at = shape?.[key];
  }
  return at;
}

/** What a leaf is, as far as a flag cares. */
export interface SettingInfo {
  kind: 'number' | 'string' | 'boolean' | 'enum' | 'list' | 'other';
  description?: string;
  default?: unknown;
  choices?: readonly string[];
  /** For numbers: the range as the message describes it; `exact` false when a check is beyond it. */
  range?: NumberSpec & { exact: boolean };
}

/** The kind, description, default, choices and range of a leaf schema. */
export function settingInfo(leaf: z.ZodType): SettingInfo {
  let at = leaf;
  let description = (at as unknown as ZodInternals).description;
  let dflt: unknown;
  while (WRAPPERS.has(defOf(at).type)) {
    const def = defOf(at);
    if ((def.type === 'default' || def.type === 'prefault') && dflt === undefined) dflt = def.defaultValue;
    at = def.innerType!;
    description ??= (at as unknown as ZodInternals).description;
  }
  const def = defOf(at);
  const base = { ...(description ? { description } : {}), ...(dflt !== undefined ? { default: dflt } : {}) };
  if (def.type === 'number') return { kind: 'number', ...base, range: numberRange(def.checks) };
  if (def.type === 'boolean') return { kind: 'boolean', ...base };
  if (def.type === 'string') return { kind: 'string', ...base };
  if (def.type === 'enum') return { kind: 'enum', ...base, choices: Object.values(def.entries as object) };
  if (def.type === 'array' && defOf(def.element as z.ZodType).type === 'string')
    return { kind: 'list', ...base };
  return { kind: 'other', ...base };
}

type Check = { _zod: { def: { check: string; value?: number; inclusive?: boolean; format?: string } } };

function numberRange(checks: unknown): NumberSpec & { exact: boolean } {
  const r: NumberSpec & { exact: boolean } = { exact: true };
  for (const c of (checks as Check[] | undefined) ?? []) {
    const d = c._zod.def;
    if (d.check === 'number_format' && /int/.test(d.format ?? '')) r.integer = true;
    else if (d.check === 'greater_than' && d.inclusive) r.min = d.value!;
    else if (d.check === 'greater_than' && d.value === 0) r.positive = true;
    else if (d.check === 'less_than' && d.inclusive) r.max = d.value!;
    else r.exact = false; // an exclusive bound other than 0, a multiple of: zod's message says it
  }
  if (r.positive && r.min !== undefined) r.exact = false;
  // an integer >= 1 is a positive integer (zod's .min(1) and .positive() say the same)
  if (r.integer && r.min === 1) {
    delete r.min;
    r.positive = true;
  }
  return r;
}

/** The help placeholder of a flag: its table's, else one for the kind (N, X, a|b, VALUE). */
function valueNameOf(target: FlagTarget, info: SettingInfo): string | undefined {
  if (typeof target !== 'string' && target.valueName) return target.valueName;
  if (info.kind === 'boolean') return undefined;
  if (info.kind === 'number') return info.range?.integer ? 'N' : 'X';
  if (info.kind === 'enum' && info.choices!.join('|').length <= 24) return info.choices!.join('|');
  return info.kind === 'enum' ? 'NAME' : 'VALUE';
}

function getPath(o: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (at, k) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined),
      o,
    );
}

/** The option specs (node:util parseArgs + help) of a flag set. */
export function flagOptions(set: SchemaFlagSet): Record<string, FlagOptionSpec> {
  return Object.fromEntries(
    Object.entries(set.table).map(([flag, target]) => {
      const path = pathOf(target);
      const info = settingInfo(settingAt(set.schema, path)!);
      const range = info.kind === 'number' && info.range ? describeNumber(info.range) : undefined;
      const help = typeof target === 'string' ? undefined : target.help;
      const text = info.description ?? help ?? `setting ${path}`;
      const shown = set.defaults !== undefined ? getPath(set.defaults, path) : info.default;
      const spec: FlagOptionSpec = {
        type: info.kind === 'boolean' ? 'boolean' : 'string',
        ...(info.kind === 'list' ? { multiple: true } : {}),
        ...(typeof target !== 'string' && target.short ? { short: target.short } : {}),
        description: `${text}${range && info.range!.exact ? ` (${range})` : ''}`,
        ...(valueNameOf(target, info) ? { valueName: valueNameOf(target, info)! } : {}),
        ...(shown !== undefined && shown !== null && !Array.isArray(shown) && typeof shown !== 'object'
          ? { helpDefault: String(shown) }
          : {}),
        setting: path,
      };
      return [flag, spec];
    }),
  );
}

export interface FlagOptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  description: string;
  valueName?: string;
  /** Shown as "(default: ...)" in help only; parseArgs never fills it in. */
  helpDefault?: string;
  /** The setting path the flag sets (kit-built options only). */
  setting: string;
}

/**
 * The given flags as one partial config, each value checked by its leaf schema. Throws a
 * UsageError naming the flag, the expected kind or range and what was given.
 */
export function readFlags<S extends z.ZodType>(
  set: SchemaFlagSet<S>,
  values: Readonly<Record<string, unknown>>,
): DeepPartial<z.infer<S>> {
  const out: Record<string, unknown> = {};
  for (const [flag, target] of Object.entries(set.table)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const path = pathOf(target);
    const leaf = settingAt(set.schema, path)!;
    const info = settingInfo(leaf);
    const given = Array.isArray(raw) ? raw.join(',') : String(raw);
    let value: unknown = raw;
    if (info.kind === 'number') value = given.trim() === '' ? Number.NaN : Number(given);
    else if (info.kind === 'list')
      value = (Array.isArray(raw) ? raw : [raw]).flatMap((x) => String(x).split(',')).filter(Boolean);
    const parsed = leaf.safeParse(value);
    if (!parsed.success) {
      if (info.kind === 'enum')
        throw new UsageError(`--${flag} must be one of ${info.choices!.join(', ')}, got '${given}'`);
      const issue = parsed.error.issues[0]!;
      if (info.kind === 'number' && info.range?.exact && issue.code !== 'custom')
        throw new UsageError(`--${flag} must be ${describeNumber(info.range)}, got '${given}'`);
      throw new UsageError(`--${flag}: ${issue.message}, got '${given}'`);
    }
    setPath(out, path, parsed.data);
  }
  return out as DeepPartial<z.infer<S>>;
}

function setPath(o: Record<string, unknown>, path: string, v: unknown): void {
  const keys = path.split('.');
  let at = o;
  for (const k of keys.slice(0, -1)) {
    at[k] ??= {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = v;
}

/** The flag(s) that set `path` (or a setting inside it), e.g. "--price-in / --price-out". */
export function flagOfPath(set: SchemaFlagSet, path: readonly PropertyKey[]): string | undefined {
  const p = path.map(String).join('.');
  const flags = Object.entries(set.table)
    .filter(([, t]) => pathOf(t) === p || pathOf(t).startsWith(`${p}.`) || p.startsWith(`${pathOf(t)}.`))
    .map(([f]) => `--${f}`);
  return flags.length ? flags.join(' / ') : undefined;
}

/** zod's issues of a whole-config parse, each led by its flag (else its path): "--batch: ...". */
export function describeIssues(
  set: SchemaFlagSet,
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  o: {
    /** The path of the parsed config inside the flag set's schema. */
    prefix?: readonly string[];
    /** Settings that other options of the command set (setting path -> '--flag'). */
    also?: Readonly<Record<string, string>>;
  } = {},
): string {
  const also = (p: string) =>
    Object.entries(o.also ?? {}).find(([k]) => p === k || p.startsWith(`${k}.`))?.[1];
  return issues
    .map((i) => {
      const path = [...(o.prefix ?? []), ...i.path];
      const at =
        flagOfPath(set, path) ??
        also(path.map(String).join('.')) ??
        (i.path.length ? i.path.map(String).join('.') : '');
      return at ? `${at}: ${i.message}` : i.message;
    })
    .join('; ');
}
