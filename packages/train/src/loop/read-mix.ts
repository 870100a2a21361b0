/**
 * Streams a training mix JSONL as example units with bounded memory: one unit per example, or
 * both views of a dual-view pair (records sharing `pairId`; original first) as one unit, so a
 * shuffle moves a pair as a whole. The mixes write the two views adjacent; a view whose partner
 * has not arrived waits in a bounded table (`maxPending`; past it the oldest is given up and
 * emitted alone), and leftovers are emitted alone at the end.
 *
 * Rows: our `TrainingExample` / `DualViewExample` (what `dv synth mix` writes), and
 * Tevatron / Promptriever rows (`query_id`, `query`, `instruction?`, `positive_passages`,
 * `negative_passages`, Promptriever's `new_negatives` = instruction negatives, put first).
 * Negatives beyond `keepNegatives` are dropped on read (the batch builder would not use them).
 * A bad row is a `DataError` naming file:line.
 */
import { DataError, describeZodIssues, readLines, TrainingExample } from '@dv/core';

export interface ReadMixOptions {
  /** Labelled negatives kept per example (default all). */
  keepNegatives?: number;
  /** Views waiting for their partner at most (default 10,000). */
  maxPending?: number;
}

type Row = Record<string, unknown>;

/** A Tevatron / Promptriever row as a TrainingExample input; our own rows pass through. */
function normalizeRow(row: Row): Row {
  if (!('positive_passages' in row)) return row;
  const passages = (v: unknown) =>
    Array.isArray(v)
      ? v.map((p: Row) => ({ docid: String(p.docid ?? ''), title: p.title ?? '', text: p.text ?? '' }))
      : [];
  return {
    id: String(row.query_id ?? row.id ?? ''),
    query: row.query,
    instruction: typeof row.instruction === 'string' && row.instruction ? row.instruction : null,
    positives: passages(row.positive_passages),
    negatives: [...passages(row.new_negatives), ...passages(row.negative_passages)],
    view: typeof row.instruction === 'string' && row.instruction ? 'original' : 'general',
  };
}

export async function* readMixUnits(
  path: string,
  options: ReadMixOptions = {},
): AsyncGenerator<TrainingExample[]> {
  const keep = options.keepNegatives ?? Number.POSITIVE_INFINITY;
  const maxPending = options.maxPending ?? 10_000;
  const pending = new Map<string, TrainingExample>();
  for await (const line of readLines(path)) {
    if (line.text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line.text);
    } catch (err) {
      throw new DataError(`invalid JSON: ${(err as Error).message}`, path, line.number);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new DataError('expected a JSON object (a training example)', path, line.number);
    const parsed = TrainingExample.safeParse(normalizeRow(json as Row));
    if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), path, line.number);
    const ex = parsed.data;
    if (ex.negatives.length > keep) ex.negatives = ex.negatives.slice(0, keep);
    if (ex.metadata) delete ex.metadata;
    if (!ex.pairId) {
      yield [ex];
      continue;
    }
    const partner = pending.get(ex.pairId);
    if (partner) {
      pending.delete(ex.pairId);
      yield partner.view === 'complement' ? [ex, partner] : [partner, ex];
      continue;
    }
    pending.set(ex.pairId, ex);
    if (pending.size > maxPending) {
      const [oldestKey, oldest] = pending.entries().next().value as [string, TrainingExample];
      pending.delete(oldestKey);
      yield [oldest];
    }
  }
  for (const ex of pending.values()) yield [ex];
}
