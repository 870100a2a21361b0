// Writes seed fixtures to a temp JSONL file for engine tests (temp folders: @dv/core's tmpDir,
// removed after each test file).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedExample } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import type { z } from 'zod';

/** A seed as written before parsing (defaults not applied). */
type SeedExampleInput = z.input<typeof SeedExample>;

/** @dv/core's test temp-dir helper under the name the synth tests use. */
export const tempDir = (prefix = 'dv-synth-'): string => tmpDir(prefix);

export function writeSeeds(seeds: SeedExampleInput[], dir = tempDir()): string {
  const path = join(dir, 'seeds.jsonl');
  writeFileSync(path, `${seeds.map((s) => JSON.stringify(s)).join('\n')}\n`);
  return path;
}
