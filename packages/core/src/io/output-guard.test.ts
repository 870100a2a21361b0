/**
 * The one output-folder guard and the writers' symlink checks (issue 25): --out under /proc
 * hung 8 commands; --out a file said "mkdir: EEXIST"; a link planted inside --out sent
 * checkpoints and the synthesis journal outside it; disk-full errors named no path.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataError } from '../errors.js';
import { tmpDir } from '../test-utils/tmp.js';
import { writeBytesAtomic, writeJsonAtomic } from './atomic-write.js';
import { dvCacheDir } from './cache-dir.js';
import { JsonlAppender } from './jsonl-appender.js';
import {
  assertNoSymlinkInside,
  guardOutputDir,
  mountOf,
  OutputDirError,
  outputRootOf,
  writeErrorToDataError,
} from './output-guard.js';

describe('guardOutputDir', () => {
  it('refuses kernel file systems at once, naming the flag and the folder', () => {
    for (const d of ['/proc/self/x', '/sys/kernel/y', '/dev/shm/z', '/proc'])
      expect(() => guardOutputDir(d, { flag: '--out' })).toThrow(
        new RegExp(`^${d}: --out is on a kernel file system \\((proc|sys|dev)\\)`),
      );
    expect(existsSync('/dev/shm/z')).toBe(false);
  });
  it('refuses a file, or a path below a file, without mkdir EEXIST / ENOTDIR', () => {
    const dir = tmpDir();
    const file = join(dir, 'f.txt');
    writeFileSync(file, 'x');
    expect(() => guardOutputDir(file)).toThrow(`${file}: --out is a file, not a folder`);
    expect(() => guardOutputDir(join(file, 'sub'), { flag: '--model' })).toThrow(
      `a path component is a file, not a folder: ${file} (--model must name a folder)`,
    );
    expect(() => guardOutputDir(file)).toThrow(OutputDirError);
  });
  it('creates the folder and registers it as an output root', () => {
    const dir = join(tmpDir(), 'a', 'b');
    expect(guardOutputDir(dir)).toBe(dir);
    expect(existsSync(dir)).toBe(true);
    expect(outputRootOf(join(dir, 'x', 'y.json'))).toBe(dir);
    const missing = join(tmpDir(), 'missing');
    expect(guardOutputDir(missing, { create: false })).toBe(missing);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('symbolic links inside an output folder', () => {
  it('assertNoSymlinkInside names the first link below the root; the root itself may be one', () => {
    const dir = tmpDir();
    const target = tmpDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(target, join(dir, 'real', 'link'));
    expect(() => assertNoSymlinkInside(dir, join(dir, 'real', 'link', 'x.json'))).toThrow(
      `${join(dir, 'real', 'link')}: is a symbolic link inside the output folder ${dir}`,
    );
    expect(() =>
      assertNoSymlinkInside(join(dir, 'real', 'link'), join(dir, 'real', 'link', 'x')),
    ).not.toThrow();
    expect(() => assertNoSymlinkInside(dir, join(dir, 'not', 'yet'))).not.toThrow();
  });
  it('the atomic writer refuses a linked folder inside --out and writes nothing through it', async () => {
    const out = guardOutputDir(join(tmpDir(), 'out'));
    const outside = tmpDir();
    symlinkSync(outside, join(out, 'checkpoints'));
    await expect(writeJsonAtomic(join(out, 'checkpoints', 'step-1', 'state.json'), {})).rejects.toThrow(
      DataError,
    );
    expect(() => writeBytesAtomic(join(out, 'checkpoints', 'w.bin'), new Uint8Array(4))).toThrow(
      /symbolic link inside the output folder/,
    );
    expect(existsSync(join(outside, 'step-1'))).toBe(false);
    expect(existsSync(join(outside, 'w.bin'))).toBe(false);
  });
  it('a link at the target itself is replaced by the rename, never written through', async () => {
    const out = guardOutputDir(join(tmpDir(), 'out'));
    const victim = join(tmpDir(), 'victim.json');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(out, 'summary.json'));
    await writeJsonAtomic(join(out, 'summary.json'), { ok: 1 });
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual({ ok: 1 });
  });
  it('the JSONL appender refuses a log that is a link (no append, no tail repair through it)', () => {
    const dir = tmpDir();
    const victim = join(tmpDir(), 'victim.txt');
    writeFileSync(victim, 'no newline at the end');
    symlinkSync(victim, join(dir, 'log.jsonl'));
    expect(() => new JsonlAppender(join(dir, 'log.jsonl'))).toThrow(
      `${join(dir, 'log.jsonl')}: is a symbolic link`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('no newline at the end');
  });
});

describe('write errors', () => {
  it('disk full, quota, read-only and permission errors name the file and its mount', () => {
    for (const [code, what] of [
      ['ENOSPC', 'no space left on the device'],
      ['EDQUOT', 'disk quota exceeded'],
      ['EROFS', 'read-only file system'],
      ['EACCES', 'permission denied'],
    ] as const) {
      const e = Object.assign(new Error(`${code}: x`), { code });
      const d = writeErrorToDataError(e, '/tmp/run/out.bin');
      expect(d).toBeInstanceOf(DataError);
      expect(d!.message).toMatch(new RegExp(`^/tmp/run/out\\.bin: cannot write: ${what} on /\\S* \\(`));
      expect(d!.message).toContain(`(${code})`);
    }
    expect(writeErrorToDataError(Object.assign(new Error('x'), { code: 'ENOENT' }), '/x')).toBeNull();
  });
  it('mountOf names the mount point and device holding a path', () => {
    expect(mountOf('/proc/self/status')).toMatch(/^\/proc \(proc, proc\)$/);
    expect(mountOf(tmpDir())).toMatch(/^\/\S* \(\S+, \S+\)$/);
  });
});

describe('dvCacheDir', () => {
  it('DV_CACHE, else $XDG_CACHE_HOME/dv, else ~/.cache/dv; never the working directory', () => {
    expect(dvCacheDir({ DV_CACHE: '/c/dv', XDG_CACHE_HOME: '/x' }, 'embeddings')).toBe('/c/dv/embeddings');
    expect(dvCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/dv');
    expect(dvCacheDir({ DV_CACHE_DIR: '/old', XDG_CACHE_HOME: '/x' })).toBe('/old');
    expect(dvCacheDir({ HOME: process.env.HOME })).toMatch(/\/\.cache\/dv$/);
    expect(dvCacheDir({ DV_CACHE: 'rel' })).toBe(join(process.cwd(), 'rel'));
  });
});
