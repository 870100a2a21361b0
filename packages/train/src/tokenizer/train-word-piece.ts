/**
 * Trains a new BERT-style WordPiece vocabulary (for the mini backbones) with the `tokenizers`
 * package's trainer and returns it as a standard Hugging Face tokenizer.json: BertNormalizer
 * (lowercase by default), BertPreTokenizer, WordPiece (`##` continuation), the BERT template
 * `[CLS] A [SEP]` / `[CLS] A [SEP] B [SEP]` and the WordPiece decoder.
 *
 * The pieces are learned here (`learnWordPieces`, byte-pair merges over word counts), not by the
 * `tokenizers` trainer: its Node binding breaks ties between equally frequent merges by hash
 * order, which changes from process to process, so two runs of the same config learned two
 * vocabularies and with them two MLM backbones (issue 26: three same-machine runs of one MLM
 * stage gave three tokenizer.json files and final losses 7.33 / 7.39 / 7.42 after 30 steps). Here a
 * tie goes to the merged piece first in code-unit order. The vocabulary is then every character
 * (plain and `##`), then the learned pieces ranked by how often they occur when the corpus is
 * tokenized with the full learned set (greedy longest match, as WordPiece tokenizes; count
 * descending, then code-unit order), cut to `vocabSize`. Normalization and pre-tokenization are
 * the `tokenizers` package's BertNormalizer and BertPreTokenizer.
 * Special tokens take ids 0-4: [PAD] [UNK] [CLS] [SEP] [MASK] (bert-base-uncased uses 0/100/101/
 * 102/103; only the names matter to the model).
 */
import { bertNormalizer, bertPreTokenizer } from 'tokenizers';
import { HfTokenizer } from './hf-tokenizer.js';

export const wordPieceSpecialTokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export interface TrainWordPieceOptions {
  /** Total vocabulary size including the special tokens. */
  vocabSize: number;
  lowercase?: boolean;
}

export async function trainWordPiece(
  texts: Iterable<string>,
  options: TrainWordPieceOptions,
): Promise<HfTokenizer> {
  const { vocabSize, lowercase = true } = options;
  if (vocabSize <= wordPieceSpecialTokens.length)
    throw new Error(`vocabSize must exceed the ${wordPieceSpecialTokens.length} special tokens`);
  const normalizer = bertNormalizer({ lowercase, stripAccents: lowercase });
  const preTokenizer = bertPreTokenizer();
  const wordCounts = new Map<string, number>();
  for (const t of texts)
    for (const [word] of preTokenizer.preTokenizeString(normalizer.normalizeString(t)))
      wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
  const learned = rankPieces(learnWordPieces(wordCounts, LEARNED_PIECES), wordCounts);
  const pieces = [...wordPieceSpecialTokens, ...learned.slice(0, vocabSize - wordPieceSpecialTokens.length)];
  const vocab = Object.fromEntries(pieces.map((p, i) => [p, i]));
  return HfTokenizer.fromJson(wordPieceTokenizerJson(vocab, { lowercase }));
}

/**
 * A BERT-style WordPiece `tokenizer.json` (HF tokenizers format) over `vocab`, whose ids 0-4
 * must be the special tokens [PAD] [UNK] [CLS] [SEP] [MASK]: BertNormalizer, BertPreTokenizer,
 * `[CLS] A [SEP]` / `[CLS] A [SEP] B [SEP]` templates, `##` continuation prefix.
 */
export function wordPieceTokenizerJson(
  vocab: Record<string, number>,
  options: { lowercase?: boolean } = {},
): string {
  const lowercase = options.lowercase ?? true;
  wordPieceSpecialTokens.forEach((t, i) => {
    if (vocab[t] !== i) throw new Error(`vocab must map ${t} to id ${i}`);
  });
  const special = (content: string, id: number) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: wordPieceSpecialTokens.map((t, i) => special(t, i)),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: lowercase ? null : false,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
  return JSON.stringify(json);
}

/** How many pieces (characters included) are learned before ranking: the trainer's default. */
const LEARNED_PIECES = 30_000;

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Byte-pair merges over a word-count table, WordPiece-style (Sennrich et al., "Neural Machine
 * Translation of Rare Words with Subword Units", ACL 2016; pieces after the first of a word carry
 * `##`): start from the characters, repeatedly merge the adjacent pair that occurs most often
 * (weighted by word count; ties: the merged piece first in code-unit order), until `maxPieces`
 * pieces are known or no pair occurs twice. Returns every piece known at the end: the characters,
 * then the merged pieces in merge order. Pair counts are updated incrementally, only for the
 * words a merge touches.
 */
export function learnWordPieces(wordCounts: ReadonlyMap<string, number>, maxPieces: number): string[] {
  const words: string[][] = [];
  const counts: number[] = [];
  const pieces = new Set<string>();
  for (const [word, n] of [...wordCounts].sort((a, b) => byCodeUnits(a[0], b[0]))) {
    const syms = [...word].map((c, i) => (i === 0 ? c : `##${c}`));
    for (const s of syms) pieces.add(s);
    words.push(syms);
    counts.push(n);
  }
  const out = [...pieces];
  const SEP = '\u0000';
  const pairCount = new Map<string, number>();
  const pairWords = new Map<string, Set<number>>();
  const changed = new Set<string>();
  const add = (w: number, sign: 1 | -1) => {
    const syms = words[w]!;
    for (let i = 0; i + 1 < syms.length; i++) {
      const key = syms[i]! + SEP + syms[i + 1]!;
      pairCount.set(key, (pairCount.get(key) ?? 0) + sign * counts[w]!);
      if (sign > 0) {
        const set = pairWords.get(key);
        if (set) set.add(w);
        else pairWords.set(key, new Set([w]));
      }
      changed.add(key);
    }
  };
  const mergedOf = (key: string) => {
    const [a, b] = key.split(SEP) as [string, string];
    return a + b.slice(2);
  };
  // max-heap of (count, merged piece, key), stale entries skipped when popped
  type Entry = { count: number; merged: string; key: string };
  const heap: Entry[] = [];
  const above = (x: Entry, y: Entry) =>
    x.count !== y.count ? x.count > y.count : x.merged !== y.merged ? x.merged < y.merged : x.key < y.key;
  const push = (e: Entry) => {
    heap.push(e);
    for (let i = heap.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!above(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): Entry | undefined => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && above(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && above(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  const flush = () => {
    for (const key of changed) {
      const count = pairCount.get(key) ?? 0;
      if (count >= 2) push({ count, merged: mergedOf(key), key });
    }
    changed.clear();
  };
  for (let w = 0; w < words.length; w++) add(w, 1);
  flush();
  while (pieces.size < maxPieces && heap.length > 0) {
    const e = pop()!;
    if (pairCount.get(e.key) !== e.count) continue; // stale
    const [a, b] = e.key.split(SEP) as [string, string];
    if (!pieces.has(e.merged)) {
      pieces.add(e.merged);
      out.push(e.merged);
    }
    for (const w of [...(pairWords.get(e.key) ?? [])].sort((x, y) => x - y)) {
      const syms = words[w]!;
      let hit = false;
      for (let i = 0; i + 1 < syms.length && !hit; i++) hit = syms[i] === a && syms[i + 1] === b;
      if (!hit) continue;
      add(w, -1);
      const next: string[] = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) {
          next.push(e.merged);
          i++;
        } else next.push(syms[i]!);
      }
      words[w] = next;
      add(w, 1);
    }
    pairWords.delete(e.key);
    flush();
  }
  return out;
}

/**
 * Characters first (sorted), then multi-character pieces by how often they occur when every word
 * is tokenized with all of `learned` (greedy longest match from the left, WordPiece's rule), then
 * the pieces no word uses.
 */
function rankPieces(learned: readonly string[], wordCounts: ReadonlyMap<string, number>): string[] {
  const known = new Set(learned);
  const usage = new Map<string, number>();
  for (const [word, n] of wordCounts) {
    const chars = [...word];
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let piece = '';
      for (; end > start; end--) {
        piece = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
        if (known.has(piece)) break;
      }
      if (end === start) break; // a character outside the learned set: the word is [UNK]
      usage.set(piece, (usage.get(piece) ?? 0) + n);
      start = end;
    }
  }
  const isChar = (p: string) => [...p.replace(/^##/, '')].length === 1;
  const chars = learned.filter(isChar).sort(byCodeUnits);
  const pieces = learned
    .filter((p) => !isChar(p) && (usage.get(p) ?? 0) > 0)
    .sort((a, b) => usage.get(b)! - usage.get(a)! || byCodeUnits(a, b));
  // pieces a longer one always covers (used by no word) last, in merge order: a small corpus
  // still fills the vocabulary it was asked for
  const unused = learned.filter((p) => !isChar(p) && !usage.has(p));
  return [...chars, ...pieces, ...unused];
}
