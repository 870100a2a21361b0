/**
 * The one locator of ../shared/data-external, the third-party reference data (Hugging Face
 * reference outputs, tokenizers, InstructIR samples) that optional golden tests read.
 *
 * Contract: the root is `DV_DATA_EXTERNAL` when set and non-empty, else
 * `<repo>/../shared/data-external` (the repo root found from this file's location). A fixture is
 * present when its folder exists; when it is absent the test skips (`it.skipIf(!dir)`) and
 * says so with one console line naming the folder.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** The data-external folder (whether or not it exists). */
export function dataExternalRoot(): string {
  return process.env.DV_DATA_EXTERNAL || join(repoRoot, '..', 'shared', 'data-external');
}

/**
 * `<root>/<sub...>` when it exists, else undefined after a console line
 * `skipping WHAT: DIR is absent (set DV_DATA_EXTERNAL to the data-external folder)`.
 * @example const dir = dataExternalDir('the tokenizer fixture tests', 'models');
 */
export function dataExternalDir(what: string, ...sub: string[]): string | undefined {
  const dir = join(dataExternalRoot(), ...sub);
  if (existsSync(dir)) return dir;
  console.warn(`skipping ${what}: ${dir} is absent (set DV_DATA_EXTERNAL to the data-external folder)`);
  return undefined;
}
