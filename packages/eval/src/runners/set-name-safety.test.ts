/**
 * Regression test for issue 12 item 1 (eval half): `dv eval run --set FILE` used the set's
 * `name` as a path, so `"name": "../../../../ESCAPED"` wrote a folder and JSON files outside
 * --out. The name is now refused when the file is read and again before the runner writes.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsafePathError } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { Bm25Ranker } from '../encoders/bm25.js';
import { BENCHMARKS } from '../tasks/task-registry.js';
import { tinyFollowIrSet } from '../test-utils/test-sets.js';
import { readInstructedSetJson, writeInstructedSetJson } from './instructed-set-json.js';
import { runBenchmark } from './run-benchmark.js';

describe('set names never escape --out (issue 12 item 1)', () => {
  it('readInstructedSetJson refuses a traversing name, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-setname-'));
    const file = join(dir, 'set.json');
    await writeInstructedSetJson(file, { ...tinyFollowIrSet(), name: '../../../../ESCAPED' });
    expect(() => readInstructedSetJson(file)).toThrow(`${file}: name "../../../../ESCAPED" contains '/'`);
  });
  it('runBenchmark refuses it before ranking or writing anything', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-setname-'));
    const out = join(root, 'a', 'b', 'out');
    mkdirSync(out, { recursive: true });
    for (const name of ['../../ESCAPED', '..', '/tmp/ESCAPED', 'a\0b']) {
      await expect(
        runBenchmark([{ ...tinyFollowIrSet(), name }], new Bm25Ranker(), {
          benchmark: BENCHMARKS['mini-followir'],
          outDir: out,
        }),
      ).rejects.toThrow(UnsafePathError);
    }
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(root)).toEqual(['a']);
    expect(existsSync('/tmp/ESCAPED')).toBe(false);
  });
});

describe('the eval manifest lists exactly the files of its folder (issue 12 item 5)', () => {
  it('every file but the manifest is listed, and every listed file exists', async () => {
    const { readFileSync } = await import('node:fs');
    const out = mkdtempSync(join(tmpdir(), 'dv-manifest-'));
    const s = await runBenchmark([tinyFollowIrSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-followir'],
      outDir: out,
    });
    const listed = (JSON.parse(readFileSync(s.manifest, 'utf8')).outputs as Array<{ path: string }>)
      .map((o) => o.path)
      .sort();
    const present = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(out.length + 1))
      .filter((p) => p !== 'manifest.json')
      .sort();
    expect(listed).toEqual(present);
  });
});
