/**
 * Trains a new BERT-style WordPiece vocabulary (for the mini backbones) with the `tokenizers`
 * package's trainer and returns it as a standard Hugging Face tokenizer.json: BertNormalizer
 * (lowercase by default), BertPreTokenizer, WordPiece (`##` continuation), the BERT template
 * `[CLS] A [SEP]` / `[CLS] A [SEP] B [SEP]` and the WordPiece decoder.
 *
 * The Node binding exposes only the trainer's defaults (30,000 pieces, no special tokens) and
 * breaks ties between equally frequent merges by hash order (run to run), so the vocabulary is
 * chosen afterwards, deterministically: every character (plain and `##`), then the learned
 * pieces ranked by how often they occur when the corpus is tokenized with the full learned
 * vocabulary (count descending, then code-unit order), cut to `vocabSize`.
 * Special tokens take ids 0-4: [PAD] [UNK] [CLS] [SEP] [MASK] (bert-base-uncased uses 0/100/101/
 * 102/103; only the names matter to the model).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bertNormalizer, bertPreTokenizer, Tokenizer, WordPiece } from 'tokenizers';
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
  const dir = mkdtempSync(join(tmpdir(), 'dv-wordpiece-'));
  let learned: string[] = [];
  try {
    const corpus = join(dir, 'corpus.txt');
    const lines: string[] = [];
    for (const t of texts) lines.push(t.replace(/[\r\n]+/g, ' '));
    writeFileSync(corpus, `${lines.join('\n')}\n`);
    const trainer = new Tokenizer(WordPiece.empty());
    trainer.setNormalizer(bertNormalizer({ lowercase, stripAccents: lowercase }));
    trainer.setPreTokenizer(bertPreTokenizer());
    trainer.train([corpus]);
    learned = await rankPieces(trainer, lines);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

/** Characters first (sorted), then multi-character pieces by usage in the corpus. */
async function rankPieces(trainer: Tokenizer, lines: string[]): Promise<string[]> {
  const normalizer = trainer.getNormalizer()!;
  const preTokenizer = trainer.getPreTokenizer()!;
  const wordCounts = new Map<string, number>();
  for (const line of lines)
    for (const [word] of preTokenizer.preTokenizeString(normalizer.normalizeString(line)))
      wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
  const words = [...wordCounts.keys()];
  const usage = new Map<string, number>();
  const encodings = await trainer.encodeBatch(words, { addSpecialTokens: false });
  encodings.forEach((e, i) => {
    const n = wordCounts.get(words[i]!)!;
    for (const t of e.getTokens()) usage.set(t, (usage.get(t) ?? 0) + n);
  });
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const all = Object.keys(trainer.getVocab(false)).filter(
    (p) => !(wordPieceSpecialTokens as readonly string[]).includes(p),
  );
  const isChar = (p: string) => [...p.replace(/^##/, '')].length === 1;
  const chars = all.filter(isChar).sort(byCodeUnits);
  const pieces = all
    .filter((p) => !isChar(p) && (usage.get(p) ?? 0) > 0)
    .sort((a, b) => usage.get(b)! - usage.get(a)! || byCodeUnits(a, b));
  return [...chars, ...pieces];
}
