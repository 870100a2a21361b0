/**
 * An instruction-following evaluation set, as every benchmark loader returns it and every
 * runner consumes it: FollowIR (modes og / changed), InfoSearch (og = original query only,
 * changed = instructed, reversed = reversed instruction), MAIR and BEIR folders (og only),
 * and the mini world's benchmarks.
 *
 * Each query carries the instruction of each mode (null = the mode uses the bare query);
 * qrels are kept per mode. `candidates` (FollowIR's `top_ranked`) turns the task into
 * reranking a fixed list per topic; without it, retrieval runs over the whole corpus.
 */
import { z } from 'zod';
import type { Passage } from './passage.js';
import type { Qrels } from './qrels.js';

export const EvalMode = z.enum(['og', 'changed', 'reversed']);
export type EvalMode = z.infer<typeof EvalMode>;

export const InstructedQuery = z.object({
  id: z.string().min(1),
  query: z.string(),
  /** Instruction per mode; a missing mode is not evaluated, null means "no instruction". */
  instructions: z.partialRecord(EvalMode, z.string().nullable()),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type InstructedQuery = z.infer<typeof InstructedQuery>;

export interface InstructedSet {
  /** Dataset name, e.g. `Robust04InstructionRetrieval`, `InfoSearch-Length`, `mini-followir`. */
  name: string;
  corpus: Passage[];
  queries: InstructedQuery[];
  qrels: Partial<Record<EvalMode, Qrels>>;
  /** qid -> candidate docids (reranking); absent for full-corpus retrieval. */
  candidates?: Map<string, string[]>;
  /** Where it came from, for manifests: repo@revision or a local path. */
  origin?: string;
  revision?: string;
}
