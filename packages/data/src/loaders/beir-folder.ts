/**
 * A local BEIR / MTEB retrieval folder, read into an `InstructedSet` with the og mode only:
 *   corpus.jsonl      `_id`, `title`, `text`
 *   queries.jsonl     `_id`, `text` (an `instruction` field, if present, becomes the og instruction)
 *   qrels/<split>.tsv `query-id  corpus-id  score` with a header line (or .jsonl)
 * Queries without qrels are dropped, as BEIR and mteb do. Retrieval runs over the whole corpus.
 */
import { join } from 'node:path';
import type { InstructedSet } from '@dv/core';
import { z } from 'zod';
import { findTable, IdValue, readQrelsTable } from '../internal/table-rows.js';
import { folderName, type LoadBenchmarkOptions, readBenchmarkFolder } from './followir-v1.js';

const QueryRow = z
  .object({ _id: IdValue, text: z.string(), instruction: z.string().nullish() })
  .passthrough();

export async function loadBeirFolder(
  dir: string,
  options: LoadBenchmarkOptions = {},
): Promise<InstructedSet> {
  const split = options.split ?? 'test';
  const {
    corpus,
    docs,
    queries: all,
    qids,
  } = await readBenchmarkFolder(dir, QueryRow, (r) => {
    const { _id, text, instruction, ...rest } = r;
    return {
      id: _id,
      query: text,
      instructions: { og: instruction ?? null },
      ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
    };
  });
  const qrels = await readQrelsTable(findTable(join(dir, 'qrels'), split), { queries: qids, docs });
  return {
    name: options.name ?? folderName(dir),
    corpus,
    queries: all.filter((q) => qrels.has(q.id)),
    qrels: { og: qrels },
    origin: options.origin ?? dir,
    ...(options.revision ? { revision: options.revision } : {}),
  };
}
