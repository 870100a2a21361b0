/**
 * Token usage ledger with an optional cost cap. Cost = prompt tokens x input price + completion
 * tokens x output price (prices in USD per million tokens, from config). Once spending reaches
 * the cap, `check()` throws `CostCapReached`: the run stops dispatching new requests; requests
 * already in flight finish and are recorded, so the overshoot is at most one request per
 * concurrent worker.
 */
import type { TokenUsage } from '@dv/core';
import { CostCapReached } from './backends/synthesis-backend.js';

export interface Pricing {
  inputPerMTokens: number;
  outputPerMTokens: number;
}

export class UsageLedger {
  promptTokens = 0;
  completionTokens = 0;
  requests = 0;
  constructor(
    readonly pricing?: Pricing,
    readonly costCapUsd?: number,
  ) {}

  add(u: TokenUsage): void {
    this.promptTokens += u.promptTokens;
    this.completionTokens += u.completionTokens;
    this.requests++;
  }

  get totalTokens(): number {
    return this.promptTokens + this.completionTokens;
  }

  get costUsd(): number {
    if (!this.pricing) return 0;
    return (
      (this.promptTokens * this.pricing.inputPerMTokens +
        this.completionTokens * this.pricing.outputPerMTokens) /
      1e6
    );
  }

  get capReached(): boolean {
    return this.costCapUsd !== undefined && this.costUsd >= this.costCapUsd;
  }

  /** Throws `CostCapReached` once the cap is spent. */
  check(): void {
    if (this.capReached)
      throw new CostCapReached(`cost cap $${this.costCapUsd} reached ($${this.costUsd.toFixed(4)} spent)`);
  }

  snapshot(): {
    promptTokens: number;
    completionTokens: number;
    totalTokens: number;
    requests: number;
    costUsd: number;
  } {
    return {
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      totalTokens: this.totalTokens,
      requests: this.requests,
      costUsd: this.costUsd,
    };
  }
}
