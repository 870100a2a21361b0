/**
 * The verification contract (beyond the paper): under (q, I'), the target D- must be judged
 * relevant and the positive D+ (and each other instruction negative) not relevant. A judge
 * returns the `Verification` stored on the record: judge name, score, threshold, passed.
 */
import type { Passage, Verification } from '@dv/core';

export interface JudgeInput {
  seedId: string;
  query: string;
  newInstruction: string;
  positive: Passage;
  target: Passage;
  otherNegatives: Passage[];
}

export interface Judge {
  readonly name: string;
  /** Pass threshold on `score`; part of the verdict's identity (a cached verdict made with
   * another judge or threshold is redone). */
  readonly threshold: number;
  /** The highest score this judge gives (a threshold above it rejects everything). */
  readonly maxScore: number;
  judge(input: JudgeInput, signal?: AbortSignal): Promise<Verification>;
}
