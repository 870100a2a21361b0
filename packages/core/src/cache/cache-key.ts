/**
 * The one keyed-resume contract (issue 25). Every reused result — a `pnpm reproduce` stage, the
 * mini world, an MLM run, a trainer run folder, a shard checkpoint, the embedding cache, a
 * synthesis journal — is keyed the same way (make/dvc-style: content, never time):
 *
 *   key = sha256(canonical JSON { kind, slice, inputs, code, salt })
 *
 *   kind    what is cached ('reproduce-stage:train/...', 'mlm-run', 'shard-checkpoint', ...)
 *   slice   the part of the configuration it reads
 *   inputs  input name -> content digest of that input (a file's sha256, a stage's output digest)
 *   code    code label -> code digest of the package (folders) that computes it (code-digest.ts)
 *   salt    an optional manual version, for what no digest sees (a data format)
 *
 * The parts are recorded beside the key, so a mismatch is explained part by part
 * (`staleReasons`: "code of @dv/train changed", "config batch.steps: 250 -> 300") by
 * `pnpm reproduce --explain` and by the trainer's refusal to resume on changed code.
 */
import { z } from 'zod';
import { canonicalJson, contentHash } from '../hash.js';
import { type CodeRef, codeDigests } from './code-digest.js';

export const CacheKeyParts = z.object({
  kind: z.string().min(1),
  slice: z.unknown(),
  inputs: z.record(z.string(), z.string()),
  code: z.record(z.string(), z.string()),
  salt: z.string().optional(),
});
export type CacheKeyParts = z.infer<typeof CacheKeyParts>;

export interface CacheKey {
  key: string;
  parts: CacheKeyParts;
}

/** Input for `cacheKey`: `code` as digests already taken, or as refs resolved from `from`. */
export interface CacheKeyInput {
  kind: string;
  slice?: unknown;
  inputs?: Readonly<Record<string, string>>;
  code?: Readonly<Record<string, string>>;
  codeRefs?: readonly CodeRef[];
  /** `import.meta.url` of the caller, to resolve `codeRefs` from. */
  from?: string;
  salt?: string;
}

/** The key and its recorded parts. */
export function cacheKey(input: CacheKeyInput): CacheKey {
  const code: Record<string, string> = { ...(input.code ?? {}) };
  if (input.codeRefs?.length) {
    if (!input.from) throw new Error('cacheKey: codeRefs need `from` (import.meta.url)');
    for (const [label, d] of Object.entries(codeDigests(input.codeRefs, input.from))) code[label] = d.digest;
  }
  const parts: CacheKeyParts = {
    kind: input.kind,
    slice: input.slice ?? null,
    inputs: { ...(input.inputs ?? {}) },
    code,
    ...(input.salt !== undefined ? { salt: input.salt } : {}),
  };
  return { key: keyOfParts(parts), parts };
}

/** The key of recorded parts (checks that a record's key is its parts' key). */
export function keyOfParts(parts: CacheKeyParts): string {
  return contentHash({
    kind: parts.kind,
    slice: parts.slice ?? null,
    inputs: parts.inputs,
    code: parts.code,
    salt: parts.salt ?? null,
  });
}

const MAX_CONFIG_DIFFS = 6;

function short(v: unknown): string {
  const s = v === undefined ? '(none)' : canonicalJson(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** Paths where two JSON values differ (`a.b[2]`), with both values. */
function jsonDiff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length > MAX_CONFIG_DIFFS) return;
  const isObj = (x: unknown): x is Record<string, unknown> =>
    x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      jsonDiff(a[k], b[k], path ? `${path}.${k}` : k, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, x] of a.entries()) jsonDiff(x, b[i], `${path}[${i}]`, out);
    return;
  }
  if (canonicalJson(a ?? null) !== canonicalJson(b ?? null))
    out.push(`${path || '(whole)'}: ${short(a)} -> ${short(b)}`);
}

function mapDiff(what: string, a: Record<string, string>, b: Record<string, string>): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!(k in a)) out.push(`${what} ${k} added`);
    else if (!(k in b)) out.push(`${what} ${k} dropped`);
    else if (a[k] !== b[k]) out.push(`${what} ${k} changed`);
  }
  return out;
}

/**
 * Why recorded parts no longer match the current ones, one line per changed part (empty when
 * they match). Parts recorded by code older than this contract (`undefined`) say so.
 */
export function staleReasons(recorded: CacheKeyParts | undefined | null, current: CacheKeyParts): string[] {
  if (!recorded) return ['recorded without key parts (made before code digests were recorded)'];
  const out: string[] = [];
  if (recorded.kind !== current.kind) out.push(`kind ${recorded.kind} -> ${current.kind}`);
  out.push(...mapDiff('code of', recorded.code, current.code));
  out.push(...mapDiff('input', recorded.inputs, current.inputs));
  const diffs: string[] = [];
  jsonDiff(recorded.slice, current.slice, '', diffs);
  if (diffs.length > MAX_CONFIG_DIFFS) diffs.splice(MAX_CONFIG_DIFFS, Infinity, 'and more');
  out.push(...diffs.map((d) => `config ${d}`));
  if ((recorded.salt ?? null) !== (current.salt ?? null))
    out.push(`salt ${recorded.salt ?? '(none)'} -> ${current.salt ?? '(none)'}`);
  return out;
}
