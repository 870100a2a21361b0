/**
 * The workspace's one concurrency limiter: a counting semaphore bounding how many tasks (HTTP
 * requests, synthesis jobs) are in flight at once.
 *
 * Contract: at most `limit` holders at a time; waiters are admitted in FIFO order as holders
 * release; a release function is idempotent. `run(fn)` holds a slot for the duration of `fn`
 * (released also when it throws). `map(items, fn)` runs `fn` over `items` with at most `limit`
 * in flight and resolves to the results in input order.
 * @example
 *   const sem = new Semaphore(4);
 *   const vecs = await sem.map(batches, (b) => embed(b)); // <= 4 requests in flight
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`concurrency limit must be a positive integer (got ${limit})`);
  }

  /** Waits for a slot; resolves to the function that releases it. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }

  /** Runs `fn` holding one slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** `fn` over every item, at most `limit` at once; results in input order. */
  map<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
    return Promise.all(items.map((item, i) => this.run(() => fn(item, i))));
  }

  /** Holders right now. */
  get inFlight(): number {
    return this.active;
  }
}
