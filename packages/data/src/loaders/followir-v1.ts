/**
 * FollowIR's v1 file layout (Hub `jhu-clsp/<name>-instructions`, and the mini world's
 * `benchmark/followir/`), read into an `InstructedSet` and written from one:
 *   corpus.jsonl               `_id, title, text` (+ `metadata` in the mini world)
 *   queries.jsonl              `_id, text, instruction_og, instruction_changed, ...`
 *   qrels_og/test.jsonl        `query-id, corpus-id, score`   (a `.tsv` with header also works)
 *   qrels_changed/test.jsonl
 *   top_ranked.jsonl           `qid, pid` (one row per candidate, or `pid` as a list)
 * Modes: `og` and `changed`; `candidates` from top_ranked (reranking, 1000 per topic in FollowIR).
 * Unknown query fields go to the query's metadata. Errors name the file (and line).
 */
import { join } from 'node:path';
import {
  DataError,
  type InstructedQuery,
  type InstructedSet,
  type Passage,
  type Qrels,
  writeJsonl,
} from '@dv/core';
import { z } from 'zod';
import {
  findTable,
  IdValue,
  parseRow,
  readCorpus,
  readQrelsTable,
  readTableRows,
} from '../internal/table-rows.js';

export interface LoadBenchmarkOptions {
  /** Dataset name for results (default: the folder name). */
  name?: string;
  split?: string;
  origin?: string;
  revision?: string;
}

const QueryRow = z
  .object({
    _id: IdValue,
    text: z.string(),
    instruction_og: z.string(),
    instruction_changed: z.string(),
  })
  .passthrough();

const TopRankedRow = z.object({ qid: IdValue, pid: z.union([IdValue, z.array(IdValue)]) }).passthrough();

export async function readQueries<S extends z.ZodType>(
  paths: string[],
  schema: S,
  build: (row: z.infer<S>) => InstructedQuery,
): Promise<InstructedQuery[]> {
  const out: InstructedQuery[] = [];
  const seen = new Map<string, number>();
  for (const path of paths) {
    for await (const row of readTableRows(path)) {
      const q = build(parseRow(schema, row, path));
      const first = seen.get(q.id);
      if (first !== undefined)
        throw new DataError(`duplicate query id "${q.id}" (first seen on line ${first})`, path, row.line);
      seen.set(q.id, row.line);
      out.push(q);
    }
  }
  return out;
}

export async function readTopRanked(
  paths: string[],
  queries: ReadonlySet<string>,
  docs: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const path of paths) {
    for await (const row of readTableRows(path)) {
      const r = parseRow(TopRankedRow, row, path);
      if (!queries.has(r.qid))
        throw new DataError(`top_ranked names unknown query "${r.qid}"`, path, row.line);
      const pids = Array.isArray(r.pid) ? r.pid : [r.pid];
      const list = out.get(r.qid) ?? [];
      for (const pid of pids) {
        if (!docs.has(pid)) throw new DataError(`top_ranked names unknown document "${pid}"`, path, row.line);
        list.push(pid);
      }
      out.set(r.qid, list);
    }
  }
  return out;
}

/** A loaded set's default name: the folder's. */
export function folderName(dir: string): string {
  return dir.replace(/\/+$/, '').split('/').pop() ?? dir;
}

/**
 * A BEIR-style folder's corpus (`corpus.*`) and queries (`queries.*`, rows mapped by `build`),
 * with the ids the qrels are checked against.
 */
export async function readBenchmarkFolder<S extends z.ZodType>(
  dir: string,
  schema: S,
  build: (row: z.infer<S>) => InstructedQuery,
): Promise<{ corpus: Passage[]; docs: Set<string>; queries: InstructedQuery[]; qids: Set<string> }> {
  const corpus = await readCorpus(findTable(dir, 'corpus'));
  const queries = await readQueries(findTable(dir, 'queries'), schema, build);
  return {
    corpus,
    docs: new Set(corpus.map((d) => d.docid)),
    queries,
    qids: new Set(queries.map((q) => q.id)),
  };
}

export async function loadFollowIRv1(
  dir: string,
  options: LoadBenchmarkOptions = {},
): Promise<InstructedSet> {
  const split = options.split ?? 'test';
  const { corpus, docs, queries, qids } = await readBenchmarkFolder(dir, QueryRow, (r) => {
    const { _id, text, instruction_og, instruction_changed, ...rest } = r;
    return {
      id: _id,
      query: text,
      instructions: { og: instruction_og, changed: instruction_changed },
      ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
    };
  });
  const qrels: Partial<Record<'og' | 'changed', Qrels>> = {
    og: await readQrelsTable(findTable(join(dir, 'qrels_og'), split), { queries: qids, docs }),
    changed: await readQrelsTable(findTable(join(dir, 'qrels_changed'), split), { queries: qids, docs }),
  };
  const candidates = await readTopRanked(findTable(dir, 'top_ranked'), qids, docs);
  return {
    name: options.name ?? folderName(dir),
    corpus,
    queries,
    qrels,
    candidates,
    origin: options.origin ?? dir,
    ...(options.revision ? { revision: options.revision } : {}),
  };
}

export function qrelRows(qrels: Qrels): Array<{ 'query-id': string; 'corpus-id': string; score: number }> {
  const rows: Array<{ 'query-id': string; 'corpus-id': string; score: number }> = [];
  for (const [qid, m] of qrels)
    for (const [docid, score] of m) rows.push({ 'query-id': qid, 'corpus-id': docid, score });
  return rows;
}

export function corpusRows(set: Pick<InstructedSet, 'corpus'>): Array<Record<string, unknown>> {
  return set.corpus.map((d) => ({
    _id: d.docid,
    title: d.title,
    text: d.text,
    ...(d.metadata ? { metadata: d.metadata } : {}),
  }));
}

/**
 * Writes the files FollowIR v1 and InfoSearch share: corpus.jsonl, queries.jsonl with one
 * `instruction_<mode>` column per mode, and qrels_<mode>/test.jsonl per mode. Returns the paths
 * in that order.
 */
export async function writeModeLayout(
  dir: string,
  set: InstructedSet,
  modes: ReadonlyArray<'og' | 'changed' | 'reversed'>,
): Promise<string[]> {
  const corpus = join(dir, 'corpus.jsonl');
  const queries = join(dir, 'queries.jsonl');
  await writeJsonl(corpus, corpusRows(set));
  await writeJsonl(
    queries,
    set.queries.map((q) => ({
      _id: q.id,
      text: q.query,
      ...Object.fromEntries(modes.map((m) => [`instruction_${m}`, q.instructions[m] ?? ''])),
      ...q.metadata,
    })),
  );
  const qrelFiles: string[] = [];
  for (const m of modes) {
    const file = join(dir, `qrels_${m}`, 'test.jsonl');
    await writeJsonl(file, qrelRows(set.qrels[m] ?? new Map()));
    qrelFiles.push(file);
  }
  return [corpus, queries, ...qrelFiles];
}

/** Writes an InstructedSet with og/changed modes in FollowIR's v1 layout; returns the files written. */
export async function writeFollowIRv1(dir: string, set: InstructedSet): Promise<string[]> {
  const files = await writeModeLayout(dir, set, ['og', 'changed']);
  const topRanked = join(dir, 'top_ranked.jsonl');
  const top: Array<{ qid: string; pid: string }> = [];
  for (const [qid, pids] of set.candidates ?? new Map()) for (const pid of pids) top.push({ qid, pid });
  await writeJsonl(topRanked, top);
  return [...files, topRanked];
}
