import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash, hashFile, sha256 } from './index.js';

describe('content hashing', () => {
  it('is independent of key order and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: undefined, b: [3, { y: 1, x: 2 }] } })).toBe(
      '{"a":{"b":[3,{"x":2,"y":1}],"d":2},"b":1}',
    );
    expect(contentHash({ a: 1, b: 2 })).toBe(contentHash({ b: 2, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
    expect(contentHash({ a: 1 }, 16)).toHaveLength(16);
  });
  it('matches the SHA-256 test vector', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('hashes files by content', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-hash-'));
    writeFileSync(join(dir, 'a'), 'abc');
    expect(await hashFile(join(dir, 'a'))).toEqual({ sha256: sha256('abc'), bytes: 3 });
  });
});
