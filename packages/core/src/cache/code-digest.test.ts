/**
 * Code digests (issue 25): a scratch workspace of two packages (`@t/lib` depending on `@t/base`
 * and a third-party `dep`), linked as pnpm links them, edited file by file.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { tmpDir } from '../test-utils/tmp.js';
import { clearCodeDigestMemo, codeDigest, codeFiles } from './code-digest.js';

function write(path: string, body: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
}

function workspace(): { root: string; lib: string; base: string } {
  const root = tmpDir();
  const base = join(root, 'packages', 'base');
  const lib = join(root, 'packages', 'lib');
  write(join(base, 'package.json'), JSON.stringify({ name: '@t/base', version: '1.0.0' }));
  write(join(base, 'src', 'index.ts'), 'export const b = 1;\n');
  write(
    join(lib, 'package.json'),
    JSON.stringify({
      name: '@t/lib',
      version: '0.1.0',
      exports: { '.': './src/index.ts', './package.json': './package.json' },
      dependencies: { '@t/base': 'workspace:*', dep: '^2.0.0' },
    }),
  );
  write(join(lib, 'src', 'index.ts'), 'export const a = 1;\n');
  write(join(lib, 'src', 'loop', 'step.ts'), 'export const step = (x: number) => x + 1;\n');
  write(join(lib, 'src', 'loop', 'step.test.ts'), 'test\n');
  write(join(lib, 'src', 'fixtures', 'big.json'), '{}\n');
  write(join(lib, 'src', 'mlm', 'mask.ts'), 'export const mask = 0.15;\n');
  write(join(lib, 'README.md'), 'docs\n');
  mkdirSync(join(lib, 'node_modules', '@t'), { recursive: true });
  symlinkSync('../../../base', join(lib, 'node_modules', '@t', 'base'));
  write(join(root, 'node_modules', 'dep', 'package.json'), JSON.stringify({ name: 'dep', version: '2.3.1' }));
  return { root, lib, base };
}

describe('codeDigest', () => {
  beforeEach(() => clearCodeDigestMemo());

  it('covers code files, not tests, fixtures or docs', () => {
    const { lib } = workspace();
    const from = pathToFileURL(join(lib, 'src', 'index.ts')).href;
    const files = codeFiles({ package: '@t/lib' }, from).map((f) => f.split('packages/lib/')[1]);
    expect(files).toEqual(['src/index.ts', 'src/loop/step.ts', 'src/mlm/mask.ts']);
    const d = codeDigest({ package: '@t/lib' }, from);
    expect(d).toMatchObject({ name: '@t/lib', version: '0.1.0', folders: ['src'], files: 3 });
    expect(d.digest).toMatch(/^[0-9a-f]{64}$/);
    // a test file, a fixture and the README change nothing
    write(join(lib, 'src', 'loop', 'step.test.ts'), 'other test\n');
    write(join(lib, 'src', 'fixtures', 'big.json'), '{"x":1}\n');
    write(join(lib, 'README.md'), 'more docs\n');
    clearCodeDigestMemo();
    expect(codeDigest({ package: '@t/lib' }, from).digest).toBe(d.digest);
  });

  it('changes with a code line, a workspace dependency and a dependency version', () => {
    const { root, lib, base } = workspace();
    const from = pathToFileURL(join(lib, 'src', 'index.ts')).href;
    const seen = new Set([codeDigest({ package: '@t/lib' }, from).digest]);
    const again = () => {
      clearCodeDigestMemo();
      return codeDigest({ package: '@t/lib' }, from).digest;
    };
    write(join(lib, 'src', 'loop', 'step.ts'), 'export const step = (x: number) => x + 2;\n');
    seen.add(again());
    const partsBefore = codeDigest({ package: '@t/lib' }, from).parts;
    expect(Object.keys(partsBefore).sort()).toEqual(['@t/base', '@t/lib']);
    write(join(base, 'src', 'index.ts'), 'export const b = 2;\n');
    seen.add(again());
    // the parts say where: @t/base's own part changed, @t/lib's did not
    const partsAfter = codeDigest({ package: '@t/lib' }, from).parts;
    expect(partsAfter['@t/base']).not.toBe(partsBefore['@t/base']);
    expect(partsAfter['@t/lib']).toBe(partsBefore['@t/lib']);
    write(
      join(root, 'node_modules', 'dep', 'package.json'),
      JSON.stringify({ name: 'dep', version: '2.4.0' }),
    );
    seen.add(again());
    expect(seen.size).toBe(4);
  });

  it('a narrowed digest sees only its folders (and still the workspace dependencies)', () => {
    const { lib, base } = workspace();
    const from = pathToFileURL(join(lib, 'src', 'index.ts')).href;
    const mlm = () => {
      clearCodeDigestMemo();
      return codeDigest({ package: '@t/lib', folders: ['src/mlm'] }, from).digest;
    };
    const before = mlm();
    write(join(lib, 'src', 'loop', 'step.ts'), 'export const step = (x: number) => x * 3;\n');
    expect(mlm()).toBe(before);
    write(join(lib, 'src', 'mlm', 'mask.ts'), 'export const mask = 0.2;\n');
    const afterMask = mlm();
    expect(afterMask).not.toBe(before);
    write(join(base, 'src', 'index.ts'), 'export const b = 3;\n');
    expect(mlm()).not.toBe(afterMask);
    expect(() => codeDigest({ package: '@t/lib', folders: ['../base'] }, from)).toThrow(/leaves/);
    expect(() => codeDigest({ package: '@t/lib', folders: ['src/nope'] }, from)).toThrow(/does not exist/);
  });

  it('an entry counts with its relative-import closure; dependencies: false leaves workspace deps out', () => {
    const { lib, base } = workspace();
    write(
      join(lib, 'src', 'mlm', 'run.ts'),
      "import { mask } from './mask.js';\nexport { step } from '../loop/step.js';\nconst later = () => import('./lazy.js');\nexport const run = () => mask + later.length;\n",
    );
    write(join(lib, 'src', 'mlm', 'lazy.ts'), 'export const lazy = 1;\n');
    write(join(lib, 'src', 'mlm', 'unused.ts'), 'export const unused = 1;\n');
    const from = pathToFileURL(join(lib, 'src', 'index.ts')).href;
    const ref = { package: '@t/lib', entries: ['src/mlm/run.ts'] };
    expect(codeFiles(ref, from).map((f) => f.split('packages/lib/')[1])).toEqual([
      'src/loop/step.ts',
      'src/mlm/lazy.ts',
      'src/mlm/mask.ts',
      'src/mlm/run.ts',
    ]);
    const thin = { ...ref, dependencies: false };
    const digests = () => {
      clearCodeDigestMemo();
      return [codeDigest(ref, from).digest, codeDigest(thin, from).digest];
    };
    const [withDeps, without] = digests();
    write(join(lib, 'src', 'mlm', 'unused.ts'), 'export const unused = 2;\n');
    expect(digests()).toEqual([withDeps, without]);
    write(join(base, 'src', 'index.ts'), 'export const b = 9;\n');
    const [withDeps2, without2] = digests();
    expect(withDeps2).not.toBe(withDeps);
    expect(without2).toBe(without);
    write(join(lib, 'src', 'loop', 'step.ts'), 'export const step = 0;\n');
    expect(digests()[1]).not.toBe(without);
    expect(() => codeDigest({ package: '@t/lib', entries: ['src/mlm/nope.ts'] }, from)).toThrow(
      /does not exist/,
    );
  });

  it('resolves the real workspace packages from this one', () => {
    const core = codeDigest({ package: '@dv/core' }, import.meta.url);
    expect(core.name).toBe('@dv/core');
    expect(core.files).toBeGreaterThan(40);
    // the same digest again from the memo, and a stable value within the process
    expect(codeDigest({ package: '@dv/core' }, import.meta.url).digest).toBe(core.digest);
  });
});
