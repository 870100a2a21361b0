import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildManifest, defaultFormatterSettings, RunManifest, sha256, writeManifest } from './index.js';
import { tmpDir } from './test-utils/tmp.js';

describe('manifest writer', () => {
  it('records config, formatter, seeds, timings, package versions and input digests', async () => {
    const dir = tmpDir();
    writeFileSync(join(dir, 'in.jsonl'), 'abc');
    const path = await writeManifest(dir, {
      kind: 'eval',
      config: { k: 1 },
      formatter: defaultFormatterSettings,
      seeds: [1, 2],
      timings: { total: 1.5 },
      inputs: [join(dir, 'in.jsonl')],
      datasetRevisions: { 'jhu-clsp/robust04-instructions': 'abc123' },
    });
    const m = RunManifest.parse(JSON.parse(readFileSync(path, 'utf8')));
    expect(m.config).toEqual({ k: 1 });
    expect(m.formatter?.joiner).toBe(' ');
    expect(m.seeds).toEqual([1, 2]);
    expect(m.inputs).toEqual([{ path: 'in.jsonl', sha256: sha256('abc'), bytes: 3 }]);
    expect(m.packages['@dv/core']).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.node).toBe(process.version);
  });
  it('has a git commit inside a repository and null outside', async () => {
    const inside = await buildManifest({ kind: 'x', config: {} });
    expect(inside.gitCommit === null || /^[0-9a-f]{40}$/.test(inside.gitCommit)).toBe(true);
    const outside = await buildManifest({ kind: 'x', config: {}, cwd: tmpDir() });
    expect(outside.gitCommit).toBeNull();
  });
});
