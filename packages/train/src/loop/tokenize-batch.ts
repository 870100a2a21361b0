/**
 * Tokenizes one training batch for the loss: the formatted queries truncated to
 * `maxQueryLength`, the documents to `maxDocLength` (special tokens included, padded to the
 * longest text of each side), exactly as the evaluation encoders tokenize each side on its own.
 *
 * The two sides are encoded one after the other, never concurrently: `HfTokenizer.encode` sets
 * truncation and padding on the shared native tokenizer and then awaits `encodeBatch`, which
 * runs later on the thread pool, so a second call started before the first finished (the
 * trainer's former `Promise.all([queries, documents])`) applied the documents' truncation to
 * the queries. Regression (issue 15): every query longer than `maxDocLength` (64 in the mini
 * preset; narrative instructions reach ~80 word pieces) lost its instruction tail in training,
 * while evaluation saw the whole text.
 */
import type { EncodedBatch, HfTokenizer } from '../tokenizer/hf-tokenizer.js';

export interface TokenizedBatch {
  queries: EncodedBatch;
  docs: EncodedBatch;
}

export async function tokenizeBatch(
  tokenizer: HfTokenizer,
  texts: { readonly queryTexts: readonly string[]; readonly docTexts: readonly string[] },
  lengths: { readonly maxQueryLength: number; readonly maxDocLength: number },
): Promise<TokenizedBatch> {
  const queries = await tokenizer.encode(texts.queryTexts, { maxLength: lengths.maxQueryLength });
  const docs = await tokenizer.encode(texts.docTexts, { maxLength: lengths.maxDocLength });
  return { queries, docs };
}
