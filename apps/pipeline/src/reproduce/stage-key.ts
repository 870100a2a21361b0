/**
 * Keys of the reproduce DAG, through @dv/core's one cache-key contract (cache/cache-key.ts):
 *
 *   key(stage)          = cacheKey({ kind: 'reproduce-stage:<id>', slice: config slice,
 *                                    inputs: { depId: outputDigest(dep) },
 *                                    code: codeDigest of each of the stage's code refs, salt })
 *   outputDigest(stage) = sha256(canonical JSON [ {path, sha256, bytes} of each output, sorted by path ])
 *
 * A stage is up to date when its recorded key equals the key computed now. A changed config
 * slice or changed code redoes that stage and, through its new output digest, exactly what
 * depends on it; a stage whose rerun produced byte-identical outputs leaves its dependants valid.
 */
import { type CacheKey, type CodeRef, cacheKey, codeDigests, contentHash } from '@dv/core';

export interface StageKeyInput {
  id: string;
  config: unknown;
  /** Dependency id -> that dependency's output digest. */
  deps: Readonly<Record<string, string>>;
  code: readonly CodeRef[];
  salt?: string;
}

export interface StageKey extends CacheKey {
  /** Code label -> what its digest covers. */
  code: Record<string, { digest: string; files: number; scope: string[]; parts: Record<string, string> }>;
}

export function stageKey(input: StageKeyInput): StageKey {
  const digests = codeDigests(input.code, import.meta.url);
  const k = cacheKey({
    kind: `reproduce-stage:${input.id}`,
    slice: input.config ?? null,
    inputs: input.deps,
    code: Object.fromEntries(Object.entries(digests).map(([label, d]) => [label, d.digest])),
    ...(input.salt !== undefined ? { salt: input.salt } : {}),
  });
  return {
    ...k,
    code: Object.fromEntries(
      Object.entries(digests).map(([label, d]) => [
        label,
        { digest: d.digest, files: d.files, scope: d.folders, parts: d.parts },
      ]),
    ),
  };
}

export function outputDigest(
  outputs: ReadonlyArray<{ path: string; sha256: string; bytes: number }>,
): string {
  const sorted = [...outputs]
    .map((o) => ({ path: o.path, sha256: o.sha256, bytes: o.bytes }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return contentHash(sorted);
}
