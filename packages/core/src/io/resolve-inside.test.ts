import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInside, UnsafePathError, unsafePathReason } from './resolve-inside.js';

describe('resolveInside (issue 12 item 1: names from data never escape the output folder)', () => {
  const root = '/tmp/dv-root';
  it('joins safe names and relative paths under the root', () => {
    expect(resolveInside(root, 'Robust04InstructionRetrieval')).toBe(
      join(root, 'Robust04InstructionRetrieval'),
    );
    expect(resolveInside(root, 'data/test/qrels.jsonl', { kind: 'path' })).toBe(
      join(root, 'data', 'test', 'qrels.jsonl'),
    );
    expect(resolveInside('rel/root', 'a..b')).toBe(resolve('rel/root', 'a..b'));
  });
  it.each([
    ['../../../../ESCAPED', 'name', "'/' where a single name"],
    ['..', 'name', "'..' segment"],
    ['../x', 'path', "'..' segment"],
    ['a/../../x', 'path', "'..' segment"],
    ['/etc/passwd', 'path', 'absolute'],
    ['C:x', 'path', 'absolute'],
    ['a\\..\\b', 'path', 'backslash'],
    ['a\0b', 'name', 'NUL'],
    ['', 'name', 'empty'],
    ['a//b', 'path', 'empty path segment'],
    ['./a', 'path', "'.' segment"],
    ['a/b', 'name', "'/' where a single name"],
    ['x\ny', 'name', 'control character'],
  ] as const)('refuses %j as a %s', (value, kind, why) => {
    expect(unsafePathReason(value, kind)).toContain(why.replace(/^'|'$/g, ''));
    expect(() => resolveInside(root, value, { kind, what: 'set name', source: 'sets.json' })).toThrow(
      UnsafePathError,
    );
    try {
      resolveInside(root, value, { kind, what: 'set name', source: 'sets.json' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^set name .* from sets\.json /);
    }
  });
});
