/** Temporary files of atomic writers killed mid-write (issue 25): swept once their writer is dead. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../test-utils/tmp.js';
import { removeStaleTemps, tempPathFor } from './atomic-write.js';

describe('removeStaleTemps', () => {
  it("removes a dead writer's temp files of that target only, keeps a live writer's and other files", () => {
    const dir = tmpDir();
    const target = join(dir, 'state.json');
    // a PID that was alive and is gone: a child that has exited
    const dead = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    const stale = join(dir, `.state.json.tmp-${dead}-0a1b2c3d`);
    const mine = tempPathFor(target);
    const other = join(dir, `.other.json.tmp-${dead}-0a1b2c3d`);
    for (const p of [stale, mine, other, target]) writeFileSync(p, 'x');
    expect(removeStaleTemps(target)).toEqual([stale]);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([other, mine, target].map((p) => p.slice(dir.length + 1)).sort());
    expect(removeStaleTemps(join(dir, 'missing', 'x.json'))).toEqual([]);
  });
});
