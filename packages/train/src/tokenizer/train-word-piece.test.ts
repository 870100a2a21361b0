import { describe, expect, it } from 'vitest';
import { trainWordPiece } from './train-word-piece.js';

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
