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
import type { InstructedSet, Qrels } from '@dv/core';
import { z } from 'zod';
import { findTable, IdValue, readQrelsTable } from '../internal/table-rows.js';
import {
  folderName,
  type LoadBenchmarkOptions,
  readBenchmarkFolder,
  writeModeLayout,
} from './followir-v1.js';

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
  const { corpus, docs, queries, qids } = await readBenchmarkFolder(dir, QueryRow, (r) => {
    const { _id, text, instruction_og, instruction_changed, instruction_reversed, ...rest } = r;
    const metadata = { ...rest, ...(instruction_og ? { instruction_og } : {}) };
    return {
      id: _id,
      query: text,
      instructions: { og: null, changed: instruction_changed, reversed: instruction_reversed },
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
  });
  const read = (mode: string) =>
    readQrelsTable(findTable(join(dir, `qrels_${mode}`), split), { queries: qids, docs });
  const qrels: Partial<Record<'og' | 'changed' | 'reversed', Qrels>> = {
    og: await read('og'),
    changed: await read('changed'),
    reversed: await read('reversed'),
  };
  return {
    name: options.name ?? folderName(dir),
    corpus,
    queries,
    qrels,
    origin: options.origin ?? dir,
    ...(options.revision ? { revision: options.revision } : {}),
  };
}

/** Writes an InstructedSet with og/changed/reversed modes in the InfoSearch layout (JSONL). */
export function writeInfoSearch(dir: string, set: InstructedSet): Promise<string[]> {
  return writeModeLayout(dir, set, ['og', 'changed', 'reversed']);
}
