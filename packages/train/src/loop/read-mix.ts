/**
 * Streams a training mix JSONL as example units with bounded memory: one unit per example, or
 * both views of a dual-view pair (records sharing `pairId`; original first) as one unit, so a
 * shuffle moves a pair as a whole. The mixes write the two views adjacent; a view whose partner
 * has not arrived waits in a bounded table (`maxPending`; past it the oldest is given up and
 * emitted alone), and leftovers are emitted alone at the end.
 *
 * Rows: our `TrainingExample` / `DualViewExample` (what `dv synth mix` writes), Tevatron /
 * Promptriever rows (`query_id`, `query`, `instruction?`, `positive_passages`,
 * `negative_passages`, Promptriever's `new_negatives` = instruction negatives, put first), and
 * sentence-transformers n-tuples (`anchor`, `positive`, `negative_1..k`; already formatted
 * texts, documents identified by a hash of their text).
 * Negatives beyond `keepNegatives` are dropped on read (the batch builder would not use them).
 * A bad row is a `DataError` naming file:line, and so is an example id seen before (the second
 * occurrence's line, and the first's): a mix concatenated twice or a pair written twice would
 * otherwise be trained on twice without a word (issue 25). The check keeps one map entry per id.
 */
import { DataError, describeZodIssues, readJsonLines, sha256, TrainingExample } from '@dv/core';

export interface ReadMixOptions {
  /** Labelled negatives kept per example (default all). */
  keepNegatives?: number;
  /** Views waiting for their partner at most (default 10,000). */
  maxPending?: number;
}

type Row = Record<string, unknown>;

/** A Tevatron / Promptriever / sentence-transformers row as a TrainingExample input; ours pass through. */
function normalizeRow(row: Row, line: number): Row {
  if ('anchor' in row && 'positive' in row) {
    // sentence-transformers n-tuples: texts only, so documents are identified by their text.
    const doc = (t: unknown) => ({
      docid: `sha256:${sha256(String(t)).slice(0, 16)}`,
      title: '',
      text: String(t),
    });
    const negatives = Object.keys(row)
      .filter((k) => /^negative(_\d+)?$/.test(k))
      .sort((a, b) => Number(a.split('_')[1] ?? 0) - Number(b.split('_')[1] ?? 0))
      .map((k) => doc(row[k]));
    return {
      id: `line-${line}`,
      query: row.anchor,
      instruction: null,
      positives: [doc(row.positive)],
      negatives,
      view: 'general',
    };
  }
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
  const firstLine = new Map<string, number>();
  for await (const row of readJsonLines(path, { expectObject: 'a JSON object (a training example)' })) {
    const parsed = TrainingExample.safeParse(normalizeRow(row.value as Row, row.line));
    if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), path, row.line);
    const ex = parsed.data;
    const first = firstLine.get(ex.id);
    if (first !== undefined)
      throw new DataError(
        `duplicate example id ${JSON.stringify(ex.id)} (first on line ${first}); ids in a mix are unique`,
        path,
        row.line,
      );
    firstLine.set(ex.id, row.line);
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
