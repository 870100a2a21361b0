/**
 * The batch builder: a pure function from the examples of one batch to what the loss needs
 * (STYLE.md practice 7): the formatted queries, the deduplicated documents, and a relation for
 * every (query, document) cell.
 *
 * For query i (example i) and document j:
 *   +1  j is one of example i's positives;
 *   -1  j is one of example i's first `hardNegatives` labelled negatives (the mix lists
 *       instruction negatives first, then mined hard negatives: Promptriever's order), unless
 *       it is also one of its positives;
 *   otherwise j is an in-batch document of another example:
 *    0  when in-batch negatives are off, or when `maskFalseNegatives` and j is a positive of
 *       another example whose formatted query is the same text (a duplicate query: its
 *       positives are relevant to this one too, a false negative, so ignored rather than
 *       pushed away);
 *   -1  else (an in-batch negative).
 *
 * Documents are deduplicated by `docid` in order of first appearance (each example's positives,
 * then its kept negatives), so the same document under two queries is one column with the
 * right relation in each row. Dual-view pairs need nothing special here: the complement's
 * positive D- is a labelled negative of the original and D+ the reverse, so both cells come
 * from the examples' own labels; the packer (`packBatches`) puts both views in one batch.
 *
 * Example: buildBatch([{ id: 'a', query: 'bass', instruction: 'fish', positives: [d1],
 *   negatives: [d2] }], ...) -> queries ['bass fish'], docs [d1, d2], relations [[1, -1]].
 */
import type { Formatter, Passage } from '@dv/core';

/** The fields of a TrainingExample / DualViewExample the batch builder reads. */
export interface BatchExample {
  readonly id: string;
  readonly query: string;
  readonly instruction: string | null;
  readonly positives: readonly Passage[];
  readonly negatives: readonly Passage[];
  readonly pairId?: string | undefined;
}

export interface BatchOptions {
  /** Labelled negatives kept per query at most. */
  readonly hardNegatives: number;
  readonly inBatchNegatives: boolean;
  readonly maskFalseNegatives: boolean;
  readonly formatter: Pick<Formatter, 'query' | 'document'>;
}

export type Relation = 1 | -1 | 0;

export interface TrainingBatch {
  /** Example ids, one per query row. */
  readonly exampleIds: string[];
  readonly queryTexts: string[];
  readonly docIds: string[];
  readonly docTexts: string[];
  /** [queries][docs]: +1 positive, -1 negative, 0 ignored. */
  readonly relations: Relation[][];
}

export function buildBatch(examples: readonly BatchExample[], options: BatchOptions): TrainingBatch {
  const { formatter } = options;
  const docIndex = new Map<string, number>();
  const docIds: string[] = [];
  const docTexts: string[] = [];
  const addDoc = (p: Passage): number => {
    let j = docIndex.get(p.docid);
    if (j === undefined) {
      j = docIds.length;
      docIndex.set(p.docid, j);
      docIds.push(p.docid);
      docTexts.push(formatter.document(p));
    }
    return j;
  };
  const queryTexts = examples.map((e) => formatter.query(e.query, e.instruction));
  const own = examples.map((e) => {
    const pos = new Set(e.positives.map(addDoc));
    const neg = new Set(e.negatives.slice(0, options.hardNegatives).map(addDoc));
    return { pos, neg };
  });
  // Positives of each distinct query text, for false-negative masking of duplicate queries.
  const positivesByText = new Map<string, Set<number>>();
  own.forEach((o, i) => {
    const set = positivesByText.get(queryTexts[i]!) ?? new Set<number>();
    for (const j of o.pos) set.add(j);
    positivesByText.set(queryTexts[i]!, set);
  });
  const relations = own.map((o, i): Relation[] => {
    const sameText = positivesByText.get(queryTexts[i]!)!;
    return docIds.map((_, j): Relation => {
      if (o.pos.has(j)) return 1;
      if (o.neg.has(j)) return -1;
      if (!options.inBatchNegatives) return 0;
      if (options.maskFalseNegatives && sameText.has(j)) return 0;
      return -1;
    });
  });
  return { exampleIds: examples.map((e) => e.id), queryTexts, docIds, docTexts, relations };
}
