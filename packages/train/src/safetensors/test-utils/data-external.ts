// Locates ../shared/data-external (third-party reference data) for optional golden tests:
// `<repo>/../shared/data-external`, or the DV_DATA_EXTERNAL override. Tests skip when absent.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..');

export const dataExternal = process.env.DV_DATA_EXTERNAL ?? join(repoRoot, '..', 'shared', 'data-external');

/** Folder of a tiny model fixture, or undefined (with a console note) when it is absent. */
export function tinyModelDir(name: string): string | undefined {
  const dir = join(dataExternal, 'models', name);
  if (existsSync(join(dir, 'model.safetensors'))) return dir;
  console.warn(`skipping: ${dir} not found (set DV_DATA_EXTERNAL to the data-external folder)`);
  return undefined;
}
