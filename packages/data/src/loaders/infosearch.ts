/**
 * InfoSearch (EIT-NLP/InfoSearch; Hub `jianqunZ/<Dim>-v1`) layout, read into an `InstructedSet`
 * and written from one (the mini world's `benchmark/infosearch/<lever>/`):
 *   corpus        `_id, title, text`
 *   queries       `_id, text, instruction_og, instruction_changed, instruction_reversed`
 *   qrels_og/test, qrels_changed/test, qrels_reversed/test   `query-id, corpus-id, score`
 * Each table may be JSONL, TSV (qrels) or parquet (`<table>.parquet` or `<table>/*.parquet`).
 * Modes: og = the original query with no instruction (InfoSearch's "original" mode; a non-empty
 * `instruction_og` is kept in metadata), changed = instructed, reversed = reversed instruction.
 * Retrieval is over the whole per-dimension corpus (no candidates).
 */
import { join } from 'node:path';
import { type InstructedSet, type Qrels, writeJsonl } from '@dv/core';
import { z } from 'zod';
import { findTable, IdValue, readCorpus, readQrelsTable } from '../internal/table-rows.js';
import { corpusRows, type LoadBenchmarkOptions, qrelRows, readQueries } from './followir-v1.js';

const QueryRow = z
  .object({
    _id: IdValue,
    text: z.string(),
    instruction_og: z.string().nullish(),
    instruction_changed: z.string(),
    instruction_reversed: z.string(),
  })
  .passthrough();

export async function loadInfoSearch(
  dir: string,
  options: LoadBenchmarkOptions = {},
): Promise<InstructedSet> {
  const split = options.split ?? 'test';
  const corpus = await readCorpus(findTable(dir, 'corpus'));
  const docs = new Set(corpus.map((d) => d.docid));
  const queries = await readQueries(findTable(dir, 'queries'), QueryRow, (r) => {
    const { _id, text, instruction_og, instruction_changed, instruction_reversed, ...rest } = r;
    const metadata = { ...rest, ...(instruction_og ? { instruction_og } : {}) };
    return {
      id: _id,
      query: text,
      instructions: { og: null, changed: instruction_changed, reversed: instruction_reversed },
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
  });
  const qids = new Set(queries.map((q) => q.id));
  const read = (mode: string) =>
    readQrelsTable(findTable(join(dir, `qrels_${mode}`), split), { queries: qids, docs });
  const qrels: Partial<Record<'og' | 'changed' | 'reversed', Qrels>> = {
    og: await read('og'),
    changed: await read('changed'),
    reversed: await read('reversed'),
  };
  return {
    name: options.name ?? dir.replace(/\/+$/, '').split('/').pop() ?? dir,
    corpus,
    queries,
    qrels,
    origin: options.origin ?? dir,
    ...(options.revision ? { revision: options.revision } : {}),
  };
}

/** Writes an InstructedSet with og/changed/reversed modes in the InfoSearch layout (JSONL). */
export async function writeInfoSearch(dir: string, set: InstructedSet): Promise<string[]> {
  const files = {
    corpus: join(dir, 'corpus.jsonl'),
    queries: join(dir, 'queries.jsonl'),
    og: join(dir, 'qrels_og', 'test.jsonl'),
    changed: join(dir, 'qrels_changed', 'test.jsonl'),
    reversed: join(dir, 'qrels_reversed', 'test.jsonl'),
  };
  await writeJsonl(files.corpus, corpusRows(set));
  await writeJsonl(
    files.queries,
    set.queries.map((q) => ({
      _id: q.id,
      text: q.query,
      instruction_og: q.instructions.og ?? '',
      instruction_changed: q.instructions.changed ?? '',
      instruction_reversed: q.instructions.reversed ?? '',
      ...q.metadata,
    })),
  );
  await writeJsonl(files.og, qrelRows(set.qrels.og ?? new Map()));
  await writeJsonl(files.changed, qrelRows(set.qrels.changed ?? new Map()));
  await writeJsonl(files.reversed, qrelRows(set.qrels.reversed ?? new Map()));
  return Object.values(files);
}
