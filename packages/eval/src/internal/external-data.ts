/**
 * Where third-party reference data lives for optional checks: `DV_DATA_EXTERNAL`, else
 * `<repo>/../shared/data-external` (the repo root found from this file's location).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function externalDataDir(): string {
  if (process.env.DV_DATA_EXTERNAL) return process.env.DV_DATA_EXTERNAL;
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
  return join(repo, '..', 'shared', 'data-external');
}
