/**
 * An InstructedSet as one JSON file, for sets a user builds by hand or exports (benchmark
 * loaders themselves live in @dv/data):
 *   { "name", "corpus": [Passage], "queries": [InstructedQuery],
 *     "qrels": { "og"|"changed"|"reversed": { qid: { docid: grade } } },
 *     "candidates"?: { qid: [docid] }, "origin"?, "revision"? }
 * Validated with the @dv/core schemas; problems are DataErrors naming the file and the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  DataError,
  describeZodIssues,
  EvalMode,
  InstructedQuery,
  type InstructedSet,
  Passage,
  type Qrels,
  unsafePathReason,
  writeJsonAtomic,
} from '@dv/core';
import { z } from 'zod';

const QrelsJson = z.record(z.string(), z.record(z.string(), z.number().int()));

export const InstructedSetJson = z.object({
  name: z.string().min(1),
  corpus: z.array(Passage),
  queries: z.array(InstructedQuery),
  qrels: z.partialRecord(EvalMode, QrelsJson),
  candidates: z.record(z.string(), z.array(z.string())).optional(),
  origin: z.string().optional(),
  revision: z.string().optional(),
});

const toQrels = (q: z.infer<typeof QrelsJson>): Qrels =>
  new Map(Object.entries(q).map(([qid, docs]) => [qid, new Map(Object.entries(docs))]));

export function readInstructedSetJson(path: string): InstructedSet {
  if (!existsSync(path)) throw new DataError('set file not found', path);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new DataError(`not a JSON file: ${(err as Error).message}`, path);
  }
  const parsed = InstructedSetJson.safeParse(raw);
  if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), path);
  const s = parsed.data;
  const unsafe = unsafePathReason(s.name);
  if (unsafe)
    throw new DataError(
      `name ${JSON.stringify(s.name)} ${unsafe} (a set's name becomes its folder and file names under --out)`,
      path,
    );
  const ids = new Set<string>();
  for (const p of s.corpus) {
    if (ids.has(p.docid)) throw new DataError(`corpus: doc ${p.docid} listed twice`, path);
    ids.add(p.docid);
  }
  const qrels: InstructedSet['qrels'] = {};
  for (const [mode, q] of Object.entries(s.qrels)) qrels[mode as EvalMode] = toQrels(q!);
  return {
    name: s.name,
    corpus: s.corpus,
    queries: s.queries,
    qrels,
    candidates: s.candidates ? new Map(Object.entries(s.candidates)) : undefined,
    origin: s.origin,
    revision: s.revision,
  };
}

export async function writeInstructedSetJson(path: string, set: InstructedSet): Promise<void> {
  const qrels = Object.fromEntries(
    Object.entries(set.qrels).map(([m, q]) => [
      m,
      Object.fromEntries([...q!].map(([qid, docs]) => [qid, Object.fromEntries(docs)])),
    ]),
  );
  await writeJsonAtomic(path, {
    name: set.name,
    corpus: set.corpus,
    queries: set.queries,
    qrels,
    candidates: set.candidates ? Object.fromEntries(set.candidates) : undefined,
    origin: set.origin,
    revision: set.revision,
  });
}
