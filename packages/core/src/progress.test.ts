import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration } from './index.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return {
    chunks,
    stream: {
      isTTY,
      columns: 200,
      write: (c: string) => {
        chunks.push(c);
        return true;
      },
    } as unknown as NodeJS.WritableStream,
  };
}

describe('progress', () => {
  it('formats durations', () => {
    expect(formatDuration(5)).toBe('0:05');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(Number.NaN)).toBe('?');
  });
  it('bar mode shows percent, rate and ETA from a clock', () => {
    let t = 0;
    const s = sink(true);
    const p = createProgress({
      label: 'encode',
      total: 100,
      unit: 'doc',
      mode: 'bar',
      stream: s.stream,
      now: () => t,
      intervalMs: 0,
    });
    t = 1000;
    p.tick(25);
    const last = s.chunks.at(-1)!;
    expect(last).toContain('25% 25/100 25.0 doc/s ETA 0:03');
    expect(last.startsWith('\r')).toBe(true);
    t = 4000;
    p.update(100);
    expect(p.done('ok')).toBe(4);
    expect(s.chunks.at(-1)).toBe('encode: 100/100 doc in 0:04 (25.0 doc/s) - ok\n');
  });
  it('lines mode prints at most one line per 10% step', () => {
    let t = 0;
    const s = sink(false);
    const p = createProgress({ label: 'synth', total: 1000, mode: 'lines', stream: s.stream, now: () => t });
    for (let i = 0; i < 1000; i++) {
      t += 1;
      p.tick();
    }
    const lines = s.chunks.filter((c) => c.includes('%'));
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(lines.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
  });
  it('silent mode writes nothing', () => {
    const s = sink(false);
    const p = createProgress({ label: 'x', total: 3, mode: 'silent', stream: s.stream });
    p.tick(3);
    p.done();
    expect(s.chunks).toEqual([]);
  });
});
