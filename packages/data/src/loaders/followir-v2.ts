/**
 * FollowIR's v2 layout (Hub `jhu-clsp/<name>-instructions-mteb`, and `mteb/<Task>InstructionRetrieval`,
 * what mteb 2 evaluates), read into an `InstructedSet`. Configs (each a JSONL file or parquet files,
 * `<config>/*.parquet` as on the Hub), as mteb's RetrievalDatasetLoader reads them
 * (mteb/abstasks/retrieval_dataset_loaders.py):
 *   corpus       `_id` or `id`, `title`, `text`
 *   queries      `_id` or `id`, `text`[, `instruction`]   ids `<topic>-og` and `<topic>-changed`
 *   instruction  `query-id`, `instruction`   (optional where the queries carry `instruction`)
 *   default      `query-id`, `corpus-id`, `score`   (qrels; a `qrels` config is also accepted)
 *   top_ranked   `query-id`, `corpus-ids` (list)    (optional: reranking candidates)
 * The two ids of a topic become one query with modes og and changed; `qrel_diff` is not needed
 * (it is derived from the two qrels).
 */
import { DataError, type InstructedQuery, type InstructedSet, type Qrels } from '@dv/core';
import { z } from 'zod';
import {
  findTable,
  IdValue,
  parseRow,
  readCorpus,
  readQrelsTable,
  readTableRows,
} from '../internal/table-rows.js';
import type { LoadBenchmarkOptions } from './followir-v1.js';

const MODE_SUFFIX = /^(.*)-(og|changed)$/;

const QueryRow = z
  .object({
    _id: IdValue.optional(),
    id: IdValue.optional(),
    text: z.string(),
    instruction: z.string().optional(),
  })
  .passthrough()
  .refine((r) => r._id !== undefined || r.id !== undefined, {
    message: 'a query row needs "_id" or "id"',
    path: ['_id'],
  });
const InstructionRow = z.object({ 'query-id': IdValue, instruction: z.string() }).passthrough();
const TopRankedRow = z.object({ 'query-id': IdValue, 'corpus-ids': z.array(IdValue) }).passthrough();

function splitId(id: string, path: string, line: number): { topic: string; mode: 'og' | 'changed' } {
  const m = MODE_SUFFIX.exec(id);
  if (!m) throw new DataError(`query id "${id}" does not end in -og or -changed`, path, line);
  return { topic: m[1]!, mode: m[2] as 'og' | 'changed' };
}

function tableOrNull(dir: string, base: string): string[] | null {
  try {
    return findTable(dir, base);
  } catch {
    return null;
  }
}

export async function loadFollowIRv2(
  dir: string,
  options: LoadBenchmarkOptions = {},
): Promise<InstructedSet> {
  const corpus = await readCorpus(findTable(dir, 'corpus'));
  const docs = new Set(corpus.map((d) => d.docid));
  const topics = new Map<string, InstructedQuery & { seen: Set<string> }>();
  const suffixed = new Set<string>();
  for (const path of findTable(dir, 'queries')) {
    for await (const row of readTableRows(path)) {
      const r = parseRow(QueryRow, row, path);
      const id = (r._id ?? r.id)!;
      if (suffixed.has(id)) throw new DataError(`duplicate query id "${id}"`, path, row.line);
      suffixed.add(id);
      const { topic, mode } = splitId(id, path, row.line);
      const t = topics.get(topic) ?? { id: topic, query: r.text, instructions: {}, seen: new Set<string>() };
      if (mode === 'og') t.query = r.text;
      if (r.instruction !== undefined) t.instructions[mode] = r.instruction;
      t.seen.add(mode);
      topics.set(topic, t);
    }
  }
  // mteb/<Task>InstructionRetrieval has no instruction config: the queries carry them
  for (const path of tableOrNull(dir, 'instruction') ?? []) {
    for await (const row of readTableRows(path)) {
      const r = parseRow(InstructionRow, row, path);
      if (!suffixed.has(r['query-id']))
        throw new DataError(`instruction names unknown query "${r['query-id']}"`, path, row.line);
      const { topic, mode } = splitId(r['query-id'], path, row.line);
      topics.get(topic)!.instructions[mode] = r.instruction;
    }
  }
  const qrelPaths = tableOrNull(dir, 'default') ?? findTable(dir, 'qrels');
  const both = await readQrelsTable(qrelPaths, { queries: suffixed, docs });
  const qrels: Record<'og' | 'changed', Qrels> = { og: new Map(), changed: new Map() };
  for (const [qid, m] of both) {
    const { topic, mode } = splitId(qid, qrelPaths[0]!, 0);
    qrels[mode].set(topic, m);
  }
  let candidates: Map<string, string[]> | undefined;
  const topPaths = tableOrNull(dir, 'top_ranked');
  if (topPaths) {
    candidates = new Map();
    for (const path of topPaths) {
      for await (const row of readTableRows(path)) {
        const r = parseRow(TopRankedRow, row, path);
        const id = r['query-id'];
        const topic = suffixed.has(id) ? splitId(id, path, row.line).topic : id;
        if (!topics.has(topic)) throw new DataError(`top_ranked names unknown query "${id}"`, path, row.line);
        for (const d of r['corpus-ids']) {
          if (!docs.has(d)) throw new DataError(`top_ranked names unknown document "${d}"`, path, row.line);
        }
        if (!candidates.has(topic)) candidates.set(topic, r['corpus-ids']);
      }
    }
  }
  const queries: InstructedQuery[] = [...topics.values()].map(({ seen: _seen, ...q }) => q);
  return {
    name: options.name ?? dir.replace(/\/+$/, '').split('/').pop() ?? dir,
    corpus,
    queries,
    qrels,
    ...(candidates ? { candidates } : {}),
    origin: options.origin ?? dir,
    ...(options.revision ? { revision: options.revision } : {}),
  };
}
