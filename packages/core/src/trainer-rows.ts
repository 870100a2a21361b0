/**
 * The one writer of the trainer-format rows that both `dv synth mix --formats` (@dv/synth
 * trainer-exports.ts) and `dv train export --engine` (@dv/train engines/export-for-engine.ts)
 * write: one training example to one JSONL row of another trainer's data format. Texts are the
 * one formatter's output (`Formatter`), so each trainer's own prompt options stay off.
 *
 * - Tevatron (`tevatron/msmarco-passage` style, read by tevatron.retriever.dataset.TrainDataset):
 *   `{query_id, query, positive_passages: [{docid, text}], negative_passages: [...]}`. The
 *   passages carry no `title` key: Tevatron joins `title + ' ' + text` when a passage has one,
 *   which would differ from our formatter's document (and add a space before an empty title).
 * - FlagEmbedding (`FlagEmbedding.finetune.embedder` data, AbsEmbedderTrainDataset):
 *   `{query, pos: [..], neg: [..]}`.
 * Negatives are written in the example's order (instruction negatives first).
 * @example tevatronRow(example, createFormatter({ queryPrefix: 'query: ' }))
 */
import type { Formatter } from './format.js';
import type { TrainingExample } from './schemas/training-example.js';

/** What a row needs of an example (a `TrainingExample` or a synthesized complement). */
export type TrainerRowExample = Pick<
  TrainingExample,
  'id' | 'query' | 'instruction' | 'positives' | 'negatives'
>;

export interface TevatronRow {
  query_id: string;
  query: string;
  positive_passages: Array<{ docid: string; text: string }>;
  negative_passages: Array<{ docid: string; text: string }>;
}

export interface FlagEmbeddingRow {
  query: string;
  pos: string[];
  neg: string[];
}

export function tevatronRow(e: TrainerRowExample, f: Formatter): TevatronRow {
  return {
    query_id: e.id,
    query: f.query(e.query, e.instruction),
    positive_passages: e.positives.map((p) => ({ docid: p.docid, text: f.document(p) })),
    negative_passages: e.negatives.map((p) => ({ docid: p.docid, text: f.document(p) })),
  };
}

export function flagEmbeddingRow(e: TrainerRowExample, f: Formatter): FlagEmbeddingRow {
  return {
    query: f.query(e.query, e.instruction),
    pos: e.positives.map((p) => f.document(p)),
    neg: e.negatives.map((p) => f.document(p)),
  };
}
