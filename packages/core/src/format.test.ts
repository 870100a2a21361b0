import { describe, expect, it } from 'vitest';
import { createFormatter, formatDocument, formatQuery } from './index.js';

describe('formatter: exact strings', () => {
  const d = {};
  it('joins query and instruction with one space (mteb)', () => {
    expect(formatQuery(d, 'bass', 'Only fish.')).toBe('bass Only fish.');
  });
  it('trims both parts so no double spaces appear', () => {
    expect(formatQuery(d, '  bass  ', '  Only fish.  ')).toBe('bass Only fish.');
    expect(formatQuery(d, 'what is bass? ', ' I want fish')).toBe('what is bass? I want fish');
  });
  it('drops an empty, blank or missing instruction without a dangling joiner', () => {
    expect(formatQuery(d, 'bass', '')).toBe('bass');
    expect(formatQuery(d, 'bass', '   ')).toBe('bass');
    expect(formatQuery(d, 'bass', null)).toBe('bass');
    expect(formatQuery(d, 'bass')).toBe('bass');
  });
  it('never inserts punctuation', () => {
    expect(formatQuery(d, 'bass', 'fish')).toBe('bass fish');
  });
  it('applies prefix, joiner and order', () => {
    const s = { queryPrefix: 'query: ', joiner: '\n', instructionFirst: true };
    expect(formatQuery(s, 'bass', 'Only fish.')).toBe('query: Only fish.\nbass');
    expect(formatQuery({ queryPrefix: 'Instruct: ' }, 'bass')).toBe('Instruct: bass');
  });
  it('formats documents as title + space + text, empty title dropped', () => {
    expect(formatDocument(d, { title: 'Bass', text: 'A fish.' })).toBe('Bass A fish.');
    expect(formatDocument(d, { title: '', text: ' A fish. ' })).toBe('A fish.');
    expect(formatDocument(d, { text: 'A fish.' })).toBe('A fish.');
    expect(
      formatDocument({ documentPrefix: 'passage: ', titleJoiner: '. ' }, { title: 'Bass', text: 'A fish.' }),
    ).toBe('passage: Bass. A fish.');
  });
  it('a bound formatter freezes validated settings', () => {
    const f = createFormatter({ joiner: ' | ' });
    expect(f.query('a', 'b')).toBe('a | b');
    expect(Object.isFrozen(f.settings)).toBe(true);
    expect(() => createFormatter({ joiner: 3 as unknown as string })).toThrow();
  });
});
