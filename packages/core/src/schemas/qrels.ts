/**
 * Relevance judgements and retrieval runs, with their TREC text forms:
 * qrels `qid 0 docid grade`, runs `qid Q0 docid rank score tag` (trec_eval 9.0.8).
 */
import { z } from 'zod';

export const Qrel = z.object({
  qid: z.string().min(1),
  docid: z.string().min(1),
  /** Integer relevance grade; >= 1 counts as relevant for binary measures. May be negative. */
  grade: z.number().int(),
});
export type Qrel = z.infer<typeof Qrel>;

export const RunEntry = z.object({
  qid: z.string().min(1),
  docid: z.string().min(1),
  score: z.number().refine(Number.isFinite, 'score must be a finite number'),
  /** The rank column of a TREC run; trec_eval ignores it and sorts by score. */
  rank: z.number().int().optional(),
  tag: z.string().optional(),
});
export type RunEntry = z.infer<typeof RunEntry>;

/** qid -> docid -> grade */
export type Qrels = Map<string, Map<string, number>>;
/** qid -> docid -> score */
export type Run = Map<string, Map<string, number>>;
