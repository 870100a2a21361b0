import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../test-utils/tmp.js';
import { readRunLines, readRunWithTag } from './trec.js';
import { plainDecimal } from './trec-run-bytes.js';

// The byte-level reader (plain files) against the line reader (trec.ts's rules, also the gzip
// path) on the same bytes: same run, same tag, or the same error naming the same line.
async function both(text: string) {
  const p = join(tmpDir('dv-trec-bytes-'), 'run.txt');
  writeFileSync(p, text);
  const settle = async <T>(f: () => Promise<T>) => {
    try {
      return { ok: await f() };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  const bytes = await settle(() => readRunWithTag(p));
  const lines = await settle(async () => {
    const s = await readRunLines(p);
    if (s.rows === 0) throw new Error('empty');
    return { run: s.run, tag: s.tag };
  });
  return { bytes, lines };
}

describe('byte-level run reader', () => {
  it('reads what the line reader reads: spacing, CRLF, extra columns, no final newline, non-ASCII', async () => {
    const text = [
      'q1 Q0 d1 1 2.5 tagA',
      'q1\tQ0\td2\t2\t-1e-3\ttagB extra cols',
      '  q2   Q0 d3 1 inf tagA\r',
      'q2 Q0 d4 2 -Infinity t',
      'q\u00e93 Q0 d\u00a0x 1 0x1A t', // non-ASCII qid, NBSP inside the doc id column
      'q3 Q0 d5 1 +7 t',
    ].join('\n');
    const { bytes, lines } = await both(text);
    expect(bytes).toEqual(lines);
    expect(bytes.ok?.tag).toBe('tagA');
    expect(bytes.ok?.run.get('q2')?.get('d3')).toBe(Number.POSITIVE_INFINITY);
    expect(bytes.ok?.run.get('q1')?.get('d2')).toBe(-1e-3);
    expect([...(bytes.ok?.run.keys() ?? [])]).toEqual(['q1', 'q2', 'q\u00e93', 'q3']);
  });

  it.each([
    ['blank line', 'q1 Q0 d1 1 1 t\n \t\r\nq1 Q0 d2 2 1 t\n'],
    ['too few columns', 'q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1\n'],
    ['NaN score', 'q1 Q0 d1 1 NaN t\n'],
    ['junk score', 'q1 Q0 d1 1 0.5abc t\n'],
    ['duplicate doc', 'q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n'],
    ['blank last line without newline', 'q1 Q0 d1 1 1 t\n\r'],
  ])('gives the line reader error for a %s', async (_, text) => {
    const { bytes, lines } = await both(text);
    expect(bytes.error).toBeDefined();
    expect(bytes).toEqual(lines);
  });

  it('carries lines across 1 MiB chunks', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `q${i % 7} Q0 doc${i} ${i} ${(i * 0.37) % 11} run`);
    const { bytes, lines } = await both(`${rows.join('\n')}\n`);
    expect(bytes.ok?.run.get('q3')?.size).toBe(8571);
    expect(bytes).toEqual(lines);
  });

  it('reads plain decimal scores from bytes exactly as Number does, and leaves other forms to it', () => {
    const enc = new TextEncoder();
    const read = (t: string) => plainDecimal(enc.encode(t), 0, enc.encode(t).length);
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const samples = ['0', '-0', '007', '1.5', '-2.25', '0.000001', '999999999999999', '123456.789012345'];
    for (let i = 0; i < 20_000; i++) {
      const v = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 12);
      samples.push(v.toFixed(Math.floor(rnd() * 9)), String(Math.round(v)));
    }
    let fast = 0;
    for (const t of samples) {
      const r = read(t);
      if (t.replace(/[^0-9]/g, '').length > 15) expect(r, t).toBeNaN();
      else {
        expect(Object.is(r, Number(t)), t).toBe(true);
        fast++;
      }
    }
    expect(fast).toBeGreaterThan(30_000);
    // Other forms (exponents, signs, 16+ digits, a bare point, inf): NaN, so Number decides.
    for (const t of ['1e3', '+7', '.5', '1.', '1234567890123456', 'inf', '-', '', '0x1A', '1.2.3'])
      expect(read(t), t).toBeNaN();
  });
});
