/**
 * Row-level readers shared by the benchmark loaders: a table is a JSONL file (optionally
 * gzipped), a TSV file with a header (BEIR qrels) or a parquet file, read with validation at
 * the edge. Every problem is a `DataError` naming the file (and line for text formats).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, describeZodIssues, type Passage, type Qrels, readJsonLines, readLines } from '@dv/core';
import { z } from 'zod';
import { readParquetRows } from '../parquet/read-parquet.js';

export interface TableRow {
  value: Record<string, unknown>;
  /** 1-based line (JSONL/TSV) or row number (parquet). */
  line: number;
}

/** Reads rows of a `.jsonl[.gz]`, `.tsv` (header line) or `.parquet` file. */
export async function* readTableRows(path: string): AsyncGenerator<TableRow> {
  if (!existsSync(path)) throw new DataError('file not found', path);
  if (path.endsWith('.parquet')) {
    let n = 0;
    for (const row of await readParquetRows(path)) yield { value: row, line: ++n };
    return;
  }
  if (path.endsWith('.tsv') || path.endsWith('.tsv.gz')) {
    let header: string[] | null = null;
    for await (const line of readLines(path)) {
      if (line.text.trim() === '') continue;
      const cells = line.text.split('\t');
      if (!header) {
        header = cells.map((c) => c.trim());
        continue;
      }
      if (cells.length !== header.length) {
        throw new DataError(
          `expected ${header.length} tab-separated columns, got ${cells.length}`,
          path,
          line.number,
        );
      }
      yield { value: Object.fromEntries(header.map((h, i) => [h, cells[i]!])), line: line.number };
    }
    return;
  }
  for await (const row of readJsonLines(path, { expectObject: 'a JSON object' }))
    yield { value: row.value as Record<string, unknown>, line: row.line };
}

/** Validates one row; errors name the file and line. */
export function parseRow<S extends z.ZodType>(schema: S, row: TableRow, path: string): z.infer<S> {
  const r = schema.safeParse(row.value);
  if (!r.success) throw new DataError(describeZodIssues(r.error.issues), path, row.line);
  return r.data;
}

/**
 * The first existing file among `<dir>/<base><ext>` for the extensions, or the parquet files in
 * `<dir>/<base>/` (Hub layout: `corpus/test-00000-of-00001.parquet`); throws naming what it looked for.
 */
export function findTable(
  dir: string,
  base: string,
  exts = ['.jsonl', '.jsonl.gz', '.tsv', '.parquet'],
): string[] {
  for (const ext of exts) {
    const p = join(dir, `${base}${ext}`);
    if (existsSync(p) && statSync(p).isFile()) return [p];
  }
  const sub = join(dir, base);
  if (existsSync(sub) && statSync(sub).isDirectory()) {
    const files = readdirSync(sub)
      .filter((f) => f.endsWith('.parquet'))
      .sort()
      .map((f) => join(sub, f));
    if (files.length > 0) return files;
  }
  throw new DataError(
    `missing ${base} (looked for ${exts.map((e) => base + e).join(', ')}, ${base}/*.parquet)`,
    dir,
  );
}

/** Ids may be strings or numbers (parquet INT64 columns arrive as bigint); kept as strings. */
export const IdValue = z.union([z.string().min(1), z.number(), z.bigint()]).transform((v) => String(v));

/** A corpus row: `_id` (BEIR, FollowIR v1) or `id` (mteb v2), optional title, text. */
export const CorpusRow = z
  .object({ _id: IdValue.optional(), id: IdValue.optional(), title: z.string().nullish(), text: z.string() })
  .passthrough()
  .refine((r) => r._id !== undefined || r.id !== undefined, {
    message: 'a corpus row needs "_id" or "id"',
    path: ['_id'],
  });

/** Reads a BEIR-style corpus (`_id`, `title`, `text`; a `metadata` object is kept). Duplicate ids are errors. */
export async function readCorpus(paths: string[]): Promise<Passage[]> {
  const out: Passage[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    for await (const row of readTableRows(path)) {
      const parsed = parseRow(CorpusRow, row, path) as z.infer<typeof CorpusRow> & { metadata?: unknown };
      const { _id: rawId, id: altId, title, text, metadata, ...rest } = parsed;
      const _id = (rawId ?? altId)!;
      const first = seen.get(_id);
      if (first)
        throw new DataError(`duplicate document id "${_id}" (first seen at ${first})`, path, row.line);
      seen.set(_id, `${path}:${row.line}`);
      const p: Passage = { docid: _id, title: title ?? '', text };
      if (metadata && typeof metadata === 'object') p.metadata = metadata as Record<string, unknown>;
      if (Object.keys(rest).length > 0) p.extra = rest;
      out.push(p);
    }
  }
  return out;
}

/** Column aliases seen in the wild (BEIR `query-id`, TREC-style `qid`/`pid`, `query_id`/`doc_id`). */
const QREL_ALIASES: Record<string, 'query-id' | 'corpus-id'> = {
  qid: 'query-id',
  query_id: 'query-id',
  'query-id': 'query-id',
  pid: 'corpus-id',
  docid: 'corpus-id',
  doc_id: 'corpus-id',
  corpus_id: 'corpus-id',
  'corpus-id': 'corpus-id',
};

function normalizeQrelRow(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[QREL_ALIASES[k] ?? k] = v;
  return out;
}

export const QrelRow = z.object({
  'query-id': IdValue,
  'corpus-id': IdValue,
  score: z
    .union([z.number(), z.bigint(), z.string().regex(/^-?\d+(\.0+)?$/)])
    .transform((v) => Math.trunc(Number(v))),
});

/**
 * Reads qrels rows (`query-id`, `corpus-id`, `score`) and checks that every query and document
 * is known; duplicate (query, doc) pairs are errors.
 */
export async function readQrelsTable(
  paths: string[],
  known: { queries?: ReadonlySet<string>; docs?: ReadonlySet<string> },
  mapQueryId: (id: string) => string = (id) => id,
): Promise<Qrels> {
  const qrels: Qrels = new Map();
  for (const path of paths) {
    for await (const row of readTableRows(path)) {
      const r = parseRow(QrelRow, { ...row, value: normalizeQrelRow(row.value) }, path);
      const qid = mapQueryId(r['query-id']);
      const docid = r['corpus-id'];
      if (known.queries && !known.queries.has(qid))
        throw new DataError(`qrel names unknown query "${qid}"`, path, row.line);
      if (known.docs && !known.docs.has(docid))
        throw new DataError(`qrel names unknown document "${docid}"`, path, row.line);
      let m = qrels.get(qid);
      if (!m) {
        m = new Map();
        qrels.set(qid, m);
      }
      if (m.has(docid))
        throw new DataError(`duplicate qrel for query "${qid}" and document "${docid}"`, path, row.line);
      m.set(docid, r.score);
    }
  }
  return qrels;
}
