/**
 * A run's journal, `log.jsonl`: one `SynthesisRecord` appended per finished seed (append-only,
 * one write per record, so a `kill -9` loses at most the records in flight). Reading it back,
 * the last record per content key wins (a retried failure supersedes the failure), and a
 * truncated last line (the write a crash cut off) is dropped.
 */
import { existsSync } from 'node:fs';
import { readJsonl, SynthesisRecord } from '@dv/core';

/** The journal's file name inside a run's output folder. */
export const LOG_FILE = 'log.jsonl';

/** Reads a run's journal: the last record per key wins (a retried failure supersedes). */
export async function readJournal(path: string): Promise<Map<string, SynthesisRecord>> {
  const out = new Map<string, SynthesisRecord>();
  if (!existsSync(path)) return out;
  for await (const r of readJsonl(path, SynthesisRecord, { allowTruncatedTail: true })) out.set(r.key, r);
  return out;
}
