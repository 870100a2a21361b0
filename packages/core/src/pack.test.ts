import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tmpDir } from './test-utils/tmp.js';

// Consumers outside the workspace get dist/ (JS + .d.ts) through the `types`/`default`
// export conditions. This packs @dv/core as npm would publish it and imports it with plain
// node (no tsx, no source condition) from a scratch project outside the workspace.
const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('@dv/core as a packed package', () => {
  it('installs from its tarball and works under plain node', () => {
    const work = tmpDir('dv-pack-');
    execFileSync('pnpm', ['pack', '--pack-destination', work], { cwd: pkgDir, stdio: 'pipe' });
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tgz).toBeDefined();
    const app = join(work, 'app');
    const modDir = join(app, 'node_modules', '@dv', 'core');
    mkdirSync(modDir, { recursive: true });
    execFileSync('tar', ['-xzf', join(work, tgz!), '-C', modDir, '--strip-components=1']);
    const files = readdirSync(join(modDir, 'dist'));
    expect(files).toContain('index.js');
    expect(files).toContain('index.d.ts');
    // Offline: link the one runtime dependency from the workspace instead of downloading it.
    const zodDir = dirname(createRequire(join(pkgDir, 'package.json')).resolve('zod/package.json'));
    symlinkSync(realpathSync(zodDir), join(app, 'node_modules', 'zod'));
    const script = [
      "import { formatQuery, createRng, SeedExample } from '@dv/core';",
      "const s = SeedExample.parse({ id: 'a', query: 'bass', instruction: { text: 'fish' }, positives: [{ docid: 'd', text: 't' }] });",
      'console.log(JSON.stringify([formatQuery({}, s.query, s.instruction.text), createRng(1).int(10)]));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
    }).toString();
    const [q, n] = JSON.parse(out) as [string, number];
    expect(q).toBe('bass fish');
    expect(n).toBeGreaterThanOrEqual(0);
  }, 300_000); // pnpm pack runs tsc: slow on a loaded 2-core machine
});
