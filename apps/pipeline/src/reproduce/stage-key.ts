/**
 * Content-hash keys of the reproduce DAG (make/dvc-style, content not time):
 *
 *   key(stage)          = sha256(canonical JSON { id, version, config slice, deps: {id: outputDigest(dep)} })
 *   outputDigest(stage) = sha256(canonical JSON [ {path, sha256, bytes} of each output, sorted by path ])
 *
 * A stage is up to date when its recorded key equals the key computed now, so changing a config
 * slice redoes that stage and, through its new output digest, exactly what depends on it; a stage
 * whose rerun produced byte-identical outputs leaves its dependants valid.
 */
import { contentHash } from '@dv/core';

export interface StageKeyInput {
  id: string;
  version: string;
  config: unknown;
  /** Dependency id -> that dependency's output digest. */
  deps: Readonly<Record<string, string>>;
}

export function stageKey(input: StageKeyInput): string {
  return contentHash({
    id: input.id,
    version: input.version,
    config: input.config ?? null,
    deps: input.deps,
  });
}

export function outputDigest(
  outputs: ReadonlyArray<{ path: string; sha256: string; bytes: number }>,
): string {
  const sorted = [...outputs]
    .map((o) => ({ path: o.path, sha256: o.sha256, bytes: o.bytes }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return contentHash(sorted);
}
