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
  judge(input: JudgeInput, signal?: AbortSignal): Promise<Verification>;
}
