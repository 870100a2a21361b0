/**
 * Where tests find ../shared/data-external (third-party reference data): `DV_DATA_EXTERNAL`, or
 * `<repo>/../shared/data-external`. Returns undefined when absent so tests can skip with a message.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

export function dataExternalDir(...sub: string[]): string | undefined {
  const base = process.env.DV_DATA_EXTERNAL || join(repoRoot, '..', 'shared', 'data-external');
  const dir = join(base, ...sub);
  return existsSync(dir) ? dir : undefined;
}
