/**
 * Seeded pseudo-random numbers: same seed, same stream, on every machine and Node version.
 *
 * Generator: xoshiro128** (Blackman & Vigna, 2018) on 32-bit integer arithmetic
 * (`Math.imul`, `>>> 0`), seeded through SplitMix32 so that nearby seeds give unrelated
 * streams. Floats use the top 24 bits, so every value is exactly representable. Never uses
 * Math.random.
 */

/**
 * The default seed of every seeded step that takes one (mini world, mixes, trainer, MLM): 13, the
 * first of the run seeds 13 / 42 / 1234 (our choice; `paperPreset.seeds`). Named once here.
 */
export const DEFAULT_SEED = 13;

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function hashLabel(label: string): number {
  // FNV-1a 32-bit over UTF-16 code units: stable and dependency free.
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface Rng {
  readonly seed: number;
  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** Uniform float in [0, 1). */
  float(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** One element, uniformly. Throws on an empty array. */
  choice<T>(items: ReadonlyArray<T>): T;
  /** A new array, Fisher-Yates shuffled. */
  shuffle<T>(items: ReadonlyArray<T>): T[];
  /** `k` distinct elements in random order. */
  sample<T>(items: ReadonlyArray<T>, k: number): T[];
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** An independent child stream named by `label`; does not advance this stream. */
  fork(label: string): Rng;
  /** The internal state, to save in checkpoints. */
  getState(): [number, number, number, number];
}

export function createRng(seed: number, state?: readonly [number, number, number, number]): Rng {
  if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  let s0: number;
  let s1: number;
  let s2: number;
  let s3: number;
  if (state) {
    [s0, s1, s2, s3] = state.map((x) => x >>> 0) as [number, number, number, number];
  } else {
    const sm = splitmix32(seed);
    s0 = sm();
    s1 = sm();
    s2 = sm();
    s3 = sm();
    if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  }

  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = rotl(s3, 11);
    return result;
  };
  const float = (): number => (nextUint32() >>> 8) / 16777216;
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`int(n) needs a positive integer, got ${n}`);
    // Rejection sampling removes modulo bias.
    const limit = 0x100000000 - (0x100000000 % n);
    let x = nextUint32();
    while (x >= limit) x = nextUint32();
    return x % n;
  };
  const rng: Rng = {
    seed,
    nextUint32,
    float,
    int,
    choice(items) {
      if (items.length === 0) throw new Error('choice() from an empty array');
      return items[int(items.length)]!;
    },
    shuffle(items) {
      const a = items.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [a[i], a[j]] = [a[j]!, a[i]!];
      }
      return a;
    },
    sample(items, k) {
      if (k > items.length) throw new Error(`sample(): k=${k} exceeds ${items.length} items`);
      return rng.shuffle(items).slice(0, k);
    },
    normal() {
      let u = 0;
      while (u === 0) u = float();
      const v = float();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    fork(label) {
      return createRng((Math.imul(seed >>> 0, 0x9e3779b1) ^ hashLabel(label)) | 0);
    },
    getState: () => [s0, s1, s2, s3],
  };
  return rng;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
