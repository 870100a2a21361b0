import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { learnWordPieces, trainWordPiece } from './train-word-piece.js';

// A tiny deterministic corpus: dictionary-style glosses built from a few word lists.
const nouns = ['bass', 'fish', 'guitar', 'singer', 'voice', 'instrument', 'lake', 'river', 'string'];
const adjectives = ['freshwater', 'low', 'deep', 'electric', 'spiny', 'large', 'tuned'];
const corpus: string[] = [];
for (let i = 0; i < 600; i++)
  corpus.push(
    `A ${adjectives[i % 7]} ${nouns[i % 9]} of the ${nouns[(i * 5) % 9]}s, found in ${nouns[(i * 3) % 9]}-like places.`,
  );

describe('trainWordPiece', () => {
  it('learns a vocabulary of the requested size with BERT special tokens first', async () => {
    // Pieces are ranked by use: the 29 characters (plain and ##) come first, then frequent words.
    const tok = await trainWordPiece(corpus, { vocabSize: 80 });
    expect(tok.vocabSize).toBe(80);
    expect(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => tok.tokenToId(t))).toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(tok.padId).toBe(0);
    const b = await tok.encode(['Deep BASS', ['fish', 'lake']]);
    expect(b.tokens[0]![0]).toBe('[CLS]');
    expect(b.tokens[0]).toEqual(['[CLS]', 'deep', 'bass', '[SEP]', '[PAD]']); // padded to the pair
    expect(b.tokenTypeIds[1]).toContain(1);
    // Everything decodes back (lowercased), because every character is in the vocabulary.
    expect(await tok.decode(b.inputIds[0]!)).toBe('deep bass');
    expect(b.tokens[1]).toEqual(['[CLS]', 'fish', '[SEP]', 'lake', '[SEP]']);
  });

  it('a larger budget keeps whole frequent words; same corpus, same vocabulary', async () => {
    const a = await trainWordPiece(corpus, { vocabSize: 200 });
    const b = await trainWordPiece(corpus, { vocabSize: 200 });
    expect(a.json).toBe(b.json);
    const e = await a.encode(['freshwater guitar'], { addSpecialTokens: false });
    expect(e.tokens[0]).toEqual(['freshwater', 'guitar']);
    await expect(trainWordPiece(corpus, { vocabSize: 5 })).rejects.toThrow(/exceed/);
    // A budget below the corpus' needs splits rare words into pieces but never into [UNK].
    const small = await trainWordPiece(corpus, { vocabSize: 40 });
    const s = await small.encode(['freshwater guitar'], { addSpecialTokens: false });
    expect(s.tokens[0]!.length).toBeGreaterThan(2);
    expect(s.tokens[0]).not.toContain('[UNK]');
  });
});

describe('learnWordPieces', () => {
  it('merges the most frequent pair first, ties to the merged piece first in code-unit order (worked by hand)', () => {
    // Sennrich et al.'s example. Pair counts at the start: ##e ##s 9 and ##s ##t 9 (tie: "##es"
    // < "##st"), then ##es ##t 9; then l ##o 7 and ##o ##w 7 (tie: "##ow" < "lo"), then l ##ow 7;
    // then n ##e, ##e ##w and ##w ##est 6 each (tie: "##ew" first).
    const words = new Map([
      ['low', 5],
      ['lower', 2],
      ['newest', 6],
      ['widest', 3],
    ]);
    const chars = ['l', '##o', '##w', '##e', '##r', 'n', '##s', '##t', 'w', '##i', '##d'];
    expect(learnWordPieces(words, chars.length + 5)).toEqual([
      ...chars,
      '##es',
      '##est',
      '##ow',
      'low',
      '##ew',
    ]);
    // no pair occurs twice: nothing to merge
    expect(learnWordPieces(new Map([['ab', 1]]), 100)).toEqual(['a', '##b']);
  });

  it('gives the same vocabulary in separate processes (many tied merges)', () => {
    // many equal counts, so many tied merges: pseudo-words from a small alphabet, seeded
    let x = 7;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x;
    };
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++)
      lines.push(
        Array.from({ length: 6 }, () =>
          Array.from({ length: 3 + (next() % 6) }, () => 'abcdefghij'[next() % 10]).join(''),
        ).join(' '),
      );
    const dir = mkdtempSync(join(tmpdir(), 'dv-wordpiece-det-'));
    const corpus = join(dir, 'corpus.json');
    writeFileSync(corpus, JSON.stringify(lines));
    const here = fileURLToPath(new URL('.', import.meta.url));
    const script = `import { readFileSync } from 'node:fs';
import { trainWordPiece } from ${JSON.stringify(join(here, 'train-word-piece.ts'))};
const t = await trainWordPiece(JSON.parse(readFileSync(process.argv[1], 'utf8')), { vocabSize: 600 });
process.stdout.write(t.json);`;
    const runs = [0, 1, 2].map(() =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, corpus], {
        cwd: here,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    );
    expect(JSON.parse(runs[0]!).model.vocab).toBeTypeOf('object');
    expect(Object.keys(JSON.parse(runs[0]!).model.vocab)).toHaveLength(600);
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).toBe(runs[0]);
  }, 120_000);
});
