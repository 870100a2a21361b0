/**
 * What `runBenchmark` tells its caller while it runs, as typed events (`onEvent`): a CLI
 * draws its progress bar from `set-done`, a pipeline stage logs them; nobody parses log text.
 *
 * - `ranking`: set `set` starts ranking `queries` queries under instruction mode `mode`.
 * - `set-done`: set `set` (the `index`-th of `total`, 1-based) is ranked, scored and written;
 *   `mainScore` is its main measure as a fraction (x100 for the paper's tables).
 */
export type BenchmarkEvent =
  | { type: 'ranking'; set: string; mode: string; queries: number }
  | {
      type: 'set-done';
      set: string;
      index: number;
      total: number;
      mainMeasure: string;
      mainScore: number;
      seconds: number;
    };

/** The one-line description of an event (what `runBenchmark`'s `log` receives). */
export function describeBenchmarkEvent(e: BenchmarkEvent): string {
  return e.type === 'ranking'
    ? `${e.set}: ranking ${e.queries} queries (${e.mode})`
    : `${e.set}: ${e.mainMeasure} ${(e.mainScore * 100).toFixed(2)} (x100) in ${e.seconds.toFixed(1)} s`;
}
