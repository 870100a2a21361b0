/**
 * One MAIR task (Hub `MAIR-Bench/MAIR-Queries` and `MAIR-Bench/MAIR-Docs`, files
 * `<task>/queries.jsonl` and `<task>/docs.jsonl`, or parquet), read into an `InstructedSet`:
 *   queries  `qid`, `instruction`, `query`, `labels: [{id, score}]`
 *   docs     `id`, `doc`
 * Mode og only (the task instruction); qrels from `labels`; retrieval over the task's docs.
 */
import { DataError, type InstructedSet, type Qrels } from '@dv/core';
import { z } from 'zod';
import { IdValue, parseRow, readTableRows } from '../internal/table-rows.js';
import { type LoadBenchmarkOptions, readQueries } from './followir-v1.js';

const DocRow = z.object({ id: IdValue, doc: z.string() }).passthrough();
const QueryRow = z
  .object({
    qid: IdValue,
    instruction: z.string().nullish(),
    query: z.string(),
    labels: z.array(z.object({ id: IdValue, score: z.number() }).passthrough()),
  })
  .passthrough();

export async function loadMairTask(
  files: { queries: string[]; docs: string[] },
  options: LoadBenchmarkOptions = {},
): Promise<InstructedSet> {
  const corpus: InstructedSet['corpus'] = [];
  const seen = new Map<string, string>();
  for (const path of files.docs) {
    for await (const row of readTableRows(path)) {
      const { id, doc, ...rest } = parseRow(DocRow, row, path);
      const first = seen.get(id);
      if (first)
        throw new DataError(`duplicate document id "${id}" (first seen at ${first})`, path, row.line);
      seen.set(id, `${path}:${row.line}`);
      corpus.push({
        docid: id,
        title: '',
        text: doc,
        ...(Object.keys(rest).length > 0 ? { extra: rest } : {}),
      });
    }
  }
  const qrels: Qrels = new Map();
  const queries = [];
  for (const path of files.queries) {
    let line = 0;
    const rows = await readQueries([path], QueryRow, (r) => {
      line++;
      const { qid, instruction, query, labels, ...rest } = r;
      const m = new Map<string, number>();
      for (const l of labels) {
        if (!seen.has(l.id))
          throw new DataError(`label names unknown document "${l.id}" (query ${qid})`, path, line);
        m.set(l.id, Math.trunc(l.score));
      }
      qrels.set(qid, m);
      return {
        id: qid,
        query,
        instructions: { og: instruction ?? null },
        ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
      };
    });
    queries.push(...rows);
  }
  return {
    name: options.name ?? 'MAIR',
    corpus,
    queries,
    qrels: { og: qrels },
    origin: options.origin ?? files.queries.join(','),
    ...(options.revision ? { revision: options.revision } : {}),
  };
}
