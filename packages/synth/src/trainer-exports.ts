/**
 * Exports of a mix to the JSONL formats other trainers read, so training scales past one
 * machine (docs/architecture.md, "Scaling past one machine"). Queries and documents go through
 * the one formatter (`formatQuery` / `formatDocument`), so every format sees the same strings,
 * prefixes included.
 *
 * - Tevatron and FlagEmbedding: the rows of @dv/core's trainer-rows.ts (`tevatronRow`,
 *   `flagEmbeddingRow`; the same rows `dv train export --engine` writes): formatted documents
 *   (prefix and title included) with no `title` key, the query with its prefix.
 * - sentence-transformers (a `datasets` JSON file for MultipleNegativesRankingLoss):
 *   `{anchor, positive, negative_1, ..., negative_k}`, k the same on every row (the smallest
 *   negative count among examples that have negatives, capped by `maxNegatives`), as n-tuple
 *   columns must be.
 *
 * Examples without negatives: Tevatron's and FlagEmbedding's group samplers draw
 * `train_group_size - 1` negatives from the row's list (`random.choices` / `random.sample` on an
 * empty list raises), and one such row would force k = 0 on every sentence-transformers row. So
 * they are left out of those three files and written as `(anchor, positive)` pairs to
 * `sentence-transformers.pairs.jsonl` (MultipleNegativesRankingLoss takes pairs too, with
 * in-batch negatives only); every other row keeps all its negatives.
 * Pairing of the two views (`pairId`) is not expressible in these formats; keep pairs adjacent
 * (the mixes do) and disable shuffling if a trainer should see both views in one batch.
 */
import { join } from 'node:path';
import {
  createFormatter,
  defaultFormatterSettings,
  type FormatterSettings,
  flagEmbeddingRow,
  formatDocument,
  formatQuery,
  tevatronRow,
  writeJsonl,
} from '@dv/core';
import type { MixExample } from './mixes.js';

export interface ExportOptions {
  formatter?: FormatterSettings;
  maxNegatives?: number;
}

export function toTevatron(
  ex: MixExample,
  f: FormatterSettings = defaultFormatterSettings,
): ReturnType<typeof tevatronRow> {
  return tevatronRow(ex, createFormatter(f));
}

export function toFlagEmbedding(
  ex: MixExample,
  f: FormatterSettings = defaultFormatterSettings,
): ReturnType<typeof flagEmbeddingRow> {
  return flagEmbeddingRow(ex, createFormatter(f));
}

export function toSentenceTransformers(
  ex: MixExample,
  k: number,
  f: FormatterSettings = defaultFormatterSettings,
) {
  const row: Record<string, string> = {
    anchor: formatQuery(f, ex.query, ex.instruction),
    positive: formatDocument(f, ex.positives[0]!),
  };
  if (ex.negatives.length < k)
    throw new Error(`example ${ex.id} has ${ex.negatives.length} negatives, fewer than the ${k} columns`);
  for (let i = 0; i < k; i++) row[`negative_${i + 1}`] = formatDocument(f, ex.negatives[i]!);
  return row;
}

const withNegatives = (xs: MixExample[]) => xs.filter((e) => e.negatives.length > 0);

type RowWriter = (examples: MixExample[], f: FormatterSettings, o: ExportOptions) => unknown[];

export const trainerFormats = Object.freeze({
  tevatron: {
    file: 'tevatron.jsonl',
    rows: ((xs, f) => {
      const fmt = createFormatter(f);
      return withNegatives(xs).map((e) => tevatronRow(e, fmt));
    }) as RowWriter,
  },
  'sentence-transformers': {
    file: 'sentence-transformers.jsonl',
    rows: ((xs, f, o) => {
      const kept = withNegatives(xs);
      const k = Math.min(o.maxNegatives ?? 30, ...kept.map((e) => e.negatives.length));
      return kept.map((e) => toSentenceTransformers(e, k, f));
    }) as RowWriter,
  },
  flagembedding: {
    file: 'flagembedding.jsonl',
    rows: ((xs, f) => {
      const fmt = createFormatter(f);
      return withNegatives(xs).map((e) => flagEmbeddingRow(e, fmt));
    }) as RowWriter,
  },
} as const satisfies Record<string, { file: string; rows: RowWriter }>);
export type TrainerFormat = keyof typeof trainerFormats;

/**
 * Writes one file per format into `dir`; returns format -> path, plus
 * `sentence-transformers-pairs` when that format is asked for and some examples have no
 * negatives (see the file comment).
 */
export async function exportForTrainers(
  examples: MixExample[],
  dir: string,
  formats: TrainerFormat[],
  o: ExportOptions = {},
): Promise<Record<string, string>> {
  const f = o.formatter ?? defaultFormatterSettings;
  const out: Record<string, string> = {};
  for (const fmt of formats) {
    const path = join(dir, trainerFormats[fmt].file);
    await writeJsonl(path, trainerFormats[fmt].rows(examples, f, o));
    out[fmt] = path;
    const bare = examples.filter((e) => e.negatives.length === 0);
    if (fmt === 'sentence-transformers' && bare.length > 0) {
      const pairs = join(dir, 'sentence-transformers.pairs.jsonl');
      await writeJsonl(
        pairs,
        bare.map((e) => toSentenceTransformers(e, 0, f)),
      );
      out['sentence-transformers-pairs'] = pairs;
    }
  }
  return out;
}
