import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// Each package's public API (src/index.ts) is listed in its checked-in api-report.md; a change
// to an export fails here until the report is regenerated, so API changes show up in review.
describe('API reports', () => {
  it('packages/*/api-report.md match the public entry points', async () => {
    const r = await promisify(execFile)(
      process.execPath,
      [join(repo, 'scripts', 'api-report.mjs'), '--check'],
      {
        cwd: repo,
      },
    ).catch((e: { stdout: string; stderr: string; code: number }) => e);
    expect('code' in r ? `${r.stderr}` : '').toBe('');
    expect(r.stdout).toMatch(/core: \d+ exports, up to date/);
    expect(r.stdout).toMatch(/eval: \d+ exports, up to date/);
  }, 120_000);
});
