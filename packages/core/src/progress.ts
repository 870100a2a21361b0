/**
 * Progress for long jobs: a redrawn bar with rate and ETA on a TTY, plain timestamped lines
 * (every 10% or 15 s) when output is a file or CI, nothing when silent. Writes to stderr so
 * stdout stays clean for results.
 */

export type ProgressMode = 'bar' | 'lines' | 'silent';

export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  mode?: ProgressMode;
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Minimum time between redraws/lines. */
  intervalMs?: number;
  now?: () => number;
}

export interface Progress {
  tick(n?: number, note?: string): void;
  update(done: number, note?: string): void;
  setTotal(total: number): void;
  /** Final line with elapsed time and average rate; returns elapsed seconds. */
  done(summary?: string): number;
  /** Units completed so far. */
  readonly completed: number;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0
    ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`
    : `${m}:${String(sec).padStart(2, '0')}`;
}

function formatRate(rate: number, unit: string): string {
  if (!Number.isFinite(rate)) return `? ${unit}/s`;
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)} ${unit}/s`;
}

export function defaultProgressMode(stream: { isTTY?: boolean } = process.stderr): ProgressMode {
  const forced = process.env.DV_PROGRESS;
  if (forced === 'silent' || forced === 'lines' || forced === 'bar') return forced;
  if (process.env.CI || !stream.isTTY) return 'lines';
  return 'bar';
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const mode = options.mode ?? defaultProgressMode(stream);
  const now = options.now ?? (() => performance.now());
  const unit = options.unit ?? 'it';
  const interval = options.intervalMs ?? (mode === 'bar' ? 100 : 15_000);
  const start = now();
  let total = options.total;
  let done = 0;
  let lastDraw = -Infinity;
  let lastPct = -1;
  let note = '';

  const status = (): string => {
    const elapsed = (now() - start) / 1000;
    const rate = elapsed > 0 ? done / elapsed : Number.NaN;
    if (total !== undefined && total > 0) {
      const pct = Math.min(1, done / total);
      const eta = rate > 0 ? (total - done) / rate : Number.NaN;
      const width = 24;
      const fill = Math.round(pct * width);
      const bar = mode === 'bar' ? `[${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ` : '';
      return `${options.label} ${bar}${(pct * 100).toFixed(0)}% ${done}/${total} ${formatRate(rate, unit)} ETA ${formatDuration(eta)}${note ? ` ${note}` : ''}`;
    }
    return `${options.label} ${done} ${unit} ${formatRate(rate, unit)} elapsed ${formatDuration(elapsed)}${note ? ` ${note}` : ''}`;
  };

  const draw = (force = false) => {
    if (mode === 'silent') return;
    const t = now();
    if (mode === 'bar') {
      if (!force && t - lastDraw < interval) return;
      lastDraw = t;
      const line = status();
      const cols = stream.columns ?? 120;
      stream.write(`\r${line.slice(0, cols - 1).padEnd(Math.min(cols - 1, line.length))}\x1b[K`);
      return;
    }
    const pct = total ? Math.floor((done / total) * 10) : -1;
    if (force || pct > lastPct || t - lastDraw >= interval) {
      lastPct = Math.max(lastPct, pct);
      lastDraw = t;
      stream.write(`${status()}\n`);
    }
  };

  return {
    tick(n = 1, n2) {
      done += n;
      if (n2 !== undefined) note = n2;
      draw();
    },
    update(d, n2) {
      done = d;
      if (n2 !== undefined) note = n2;
      draw();
    },
    setTotal(t) {
      total = t;
    },
    done(summary) {
      const elapsed = (now() - start) / 1000;
      if (mode === 'bar') stream.write('\r\x1b[K');
      if (mode !== 'silent') {
        const rate = elapsed > 0 ? done / elapsed : Number.NaN;
        stream.write(
          `${options.label}: ${done}${total !== undefined ? `/${total}` : ''} ${unit} in ${formatDuration(elapsed)} (${formatRate(rate, unit)})${summary ? ` - ${summary}` : ''}\n`,
        );
      }
      return elapsed;
    },
    get completed() {
      return done;
    },
  };
}
