/**
 * The BM25 baseline's tokenisation, fixed and documented so lexical numbers are reproducible:
 *   1. Unicode NFKC normalisation, then lower-casing (String.prototype.toLowerCase);
 *   2. split into maximal runs of letters and digits (`\p{L}`, `\p{N}`, plus combining marks
 *      `\p{M}`); everything else (spaces, punctuation, symbols) separates tokens;
 *   3. drop Lucene's 33 English stop words (the StandardAnalyzer/EnglishAnalyzer list);
 *   4. no stemming.
 * @example lexicalTokens("The Bass's range: 40-60 Hz") -> ['bass', 's', 'range', '40', '60', 'hz']
 */
export const LUCENE_ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

export function lexicalTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (!LUCENE_ENGLISH_STOPWORDS.has(m[0])) out.push(m[0]);
  }
  return out;
}
