/**
 * Exports of a mix to the JSONL formats other trainers read, so training scales past one
 * machine (DESIGN.md, "Scaling past one machine"). Queries and documents go through the one
 * formatter (`formatQuery` / `formatDocument`), so every format sees the same strings.
 *
 * - Tevatron (`tevatron/msmarco-passage` style): `{query_id, query, positive_passages:
 *   [{docid, title, text}], negative_passages: [...]}`.
 * - sentence-transformers (a `datasets` JSON file for MultipleNegativesRankingLoss):
 *   `{anchor, positive, negative_1, ..., negative_k}`, k the same on every row (the smallest
 *   negative count in the mix, capped by `maxNegatives`), as n-tuple columns must be.
 * - FlagEmbedding (`FlagEmbedding.finetune.embedder` data): `{query, pos: [..], neg: [..]}`.
 * Pairing of the two views (`pairId`) is not expressible in these formats; keep pairs adjacent
 * (the mixes do) and disable shuffling if a trainer should see both views in one batch.
 */
import { join } from 'node:path';
import {
  defaultFormatterSettings,
  type FormatterSettings,
  formatDocument,
  formatQuery,
  writeJsonl,
} from '@dv/core';
import type { MixExample } from './mixes.js';

export interface ExportOptions {
  formatter?: FormatterSettings;
  maxNegatives?: number;
}

export function toTevatron(ex: MixExample, f: FormatterSettings = defaultFormatterSettings) {
  const p = (d: { docid: string; title: string; text: string }) => ({
    docid: d.docid,
    title: d.title,
    text: d.text,
  });
  return {
    query_id: ex.id,
    query: formatQuery(f, ex.query, ex.instruction),
    positive_passages: ex.positives.map(p),
    negative_passages: ex.negatives.map(p),
  };
}

export function toFlagEmbedding(ex: MixExample, f: FormatterSettings = defaultFormatterSettings) {
  return {
    query: formatQuery(f, ex.query, ex.instruction),
    pos: ex.positives.map((d) => formatDocument(f, d)),
    neg: ex.negatives.map((d) => formatDocument(f, d)),
  };
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
  for (let i = 0; i < k; i++) row[`negative_${i + 1}`] = formatDocument(f, ex.negatives[i]!);
  return row;
}

type RowWriter = (examples: MixExample[], f: FormatterSettings, o: ExportOptions) => unknown[];

export const trainerFormats = Object.freeze({
  tevatron: { file: 'tevatron.jsonl', rows: ((xs, f) => xs.map((e) => toTevatron(e, f))) as RowWriter },
  'sentence-transformers': {
    file: 'sentence-transformers.jsonl',
    rows: ((xs, f, o) => {
      const k = Math.min(o.maxNegatives ?? 30, ...xs.map((e) => e.negatives.length));
      return xs.map((e) => toSentenceTransformers(e, k, f));
    }) as RowWriter,
  },
  flagembedding: {
    file: 'flagembedding.jsonl',
    rows: ((xs, f) => xs.map((e) => toFlagEmbedding(e, f))) as RowWriter,
  },
} as const satisfies Record<string, { file: string; rows: RowWriter }>);
export type TrainerFormat = keyof typeof trainerFormats;

/** Writes one file per format into `dir`; returns format -> path. */
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
  }
  return out;
}
