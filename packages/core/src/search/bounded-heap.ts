/**
 * The workspace's one top-k heap (dense exact search and BM25 in @dv/eval, distractor mining in
 * @dv/data): a bounded min-heap keeping the k best (score, index) pairs seen: the root is the worst kept
 * item, so a new item enters only when it beats the root. Order: higher score is better; on
 * equal scores the lower index is better (deterministic; items usually arrive in increasing
 * index order, so a tie with the root never displaces it).
 */
export class BoundedHeap {
  readonly scores: Float64Array;
  readonly indices: Int32Array;
  size = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.indices = new Int32Array(capacity);
  }

  /** `a` is worse than `b`. */
  private worse(sa: number, ia: number, sb: number, ib: number): boolean {
    return sa < sb || (sa === sb && ia > ib);
  }

  /** Score below which nothing can enter (-Infinity until full). */
  get threshold(): number {
    return this.size < this.capacity ? Number.NEGATIVE_INFINITY : this.scores[0]!;
  }

  push(score: number, index: number): void {
    const s = this.scores;
    const ix = this.indices;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, index, s[p]!, ix[p]!)) break;
        s[i] = s[p]!;
        ix[i] = ix[p]!;
        i = p;
      }
      s[i] = score;
      ix[i] = index;
      return;
    }
    if (this.capacity === 0 || !this.worse(s[0]!, ix[0]!, score, index)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.worse(s[r]!, ix[r]!, s[l]!, ix[l]!) ? r : l;
      if (!this.worse(s[c]!, ix[c]!, score, index)) break;
      s[i] = s[c]!;
      ix[i] = ix[c]!;
      i = c;
    }
    s[i] = score;
    ix[i] = index;
  }

  /** Kept items, best first. */
  sorted(): Array<{ score: number; index: number }> {
    const out: Array<{ score: number; index: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ score: this.scores[i]!, index: this.indices[i]! });
    return out.sort((a, b) => (b.score !== a.score ? b.score - a.score : a.index - b.index));
  }
}
