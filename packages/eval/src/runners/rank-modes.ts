/**
 * Ranks one InstructedSet under each of its instruction modes: formats every query with the
 * ranker's formatter (query + the mode's instruction; null = bare query) and every document,
 * then reranks the set's candidate lists (FollowIR) or retrieves the top k from the whole
 * corpus (InfoSearch, MAIR). A mode is ranked when it has qrels; queries without an entry for
 * the mode are left out of that mode's run.
 */
import { type EvalMode, formatDocument, formatQuery, type InstructedSet, type Run } from '@dv/core';
import type { Ranker, TextItem } from '../search/ranker.js';

export interface RankModesOptions {
  /** Depth of full-corpus retrieval (ignored when the set has candidates). */
  topK: number;
  modes?: readonly EvalMode[];
  onMode?: (mode: EvalMode, queries: number) => void;
}

export async function rankModes(
  set: InstructedSet,
  ranker: Ranker,
  options: RankModesOptions,
): Promise<Partial<Record<EvalMode, Run>>> {
  const corpus: TextItem[] = set.corpus.map((p) => ({
    id: p.docid,
    text: formatDocument(ranker.formatter, p),
  }));
  const modes = options.modes ?? (['og', 'changed', 'reversed'] as const).filter((m) => set.qrels[m]);
  const runs: Partial<Record<EvalMode, Run>> = {};
  for (const mode of modes) {
    const queries: TextItem[] = set.queries
      .filter((q) => mode in q.instructions)
      .map((q) => ({ id: q.id, text: formatQuery(ranker.formatter, q.query, q.instructions[mode] ?? null) }));
    options.onMode?.(mode, queries.length);
    runs[mode] = set.candidates
      ? await ranker.rerank(queries, corpus, set.candidates)
      : await ranker.retrieve(queries, corpus, options.topK);
  }
  return runs;
}
