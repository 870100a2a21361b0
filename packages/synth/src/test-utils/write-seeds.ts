// Writes seed fixtures to a temp JSONL file for engine tests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedExampleInput } from '@dv/core';

export function tempDir(prefix = 'dv-synth-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeSeeds(seeds: SeedExampleInput[], dir = tempDir()): string {
  const path = join(dir, 'seeds.jsonl');
  writeFileSync(path, `${seeds.map((s) => JSON.stringify(s)).join('\n')}\n`);
  return path;
}
