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
 *       another example with the same query, i.e. the same formatted text (a duplicate query:
 *       its positives are relevant to this one too) or the same bare query under another
 *       instruction (the other view of a dual-view pair, or another instruction over the same
 *       lemma: j is on topic and nobody labelled it under this instruction, so it may well be
 *       relevant; a possible false negative is ignored rather than pushed away);
 *   -1  else (an in-batch negative).
 * The explicit labels win over the masking: the complement's D+ is its own labelled negative,
 * so it stays -1 although it is the original's positive.
 *
 * Regression (issue 15): the original view of a pair often lists more than one positive (D+
 * and other senses that satisfy I); the complement's label names only D- as positive. Before
 * the same-query rule, those other senses were -1 in-batch negatives of the complement, though
 * many satisfy I' too (I' "quotes an example" and the sense has one), so the two views were
 * pulled towards and pushed from the same on-topic document in one batch.
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
  // Positives of each distinct formatted text and of each bare query, for false-negative
  // masking: a positive of the same query (same text, or another instruction over it).
  const positivesOf = (key: (i: number) => string): Map<string, Set<number>> => {
    const map = new Map<string, Set<number>>();
    own.forEach((o, i) => {
      const set = map.get(key(i)) ?? new Set<number>();
      for (const j of o.pos) set.add(j);
      map.set(key(i), set);
    });
    return map;
  };
  const byText = positivesOf((i) => queryTexts[i]!);
  const byQuery = positivesOf((i) => examples[i]!.query);
  const relations = own.map((o, i): Relation[] => {
    const sameText = byText.get(queryTexts[i]!)!;
    const sameQuery = byQuery.get(examples[i]!.query)!;
    return docIds.map((_, j): Relation => {
      if (o.pos.has(j)) return 1;
      if (o.neg.has(j)) return -1;
      if (!options.inBatchNegatives) return 0;
      if (options.maskFalseNegatives && (sameText.has(j) || sameQuery.has(j))) return 0;
      return -1;
    });
  });
  return { exampleIds: examples.map((e) => e.id), queryTexts, docIds, docTexts, relations };
}
