import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateBenchGoals } from './bench-goals.js';
import { parseCpuInfo } from './cpu-info.js';

const amd = parseCpuInfo('model name : AMD EPYC 7B13\nflags : avx2 fma\n', 2);
const intel = parseCpuInfo('model name : Intel(R) Xeon(R) Processor\nflags : avx2 avx512f\n', 2);

function doc(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-goals-'));
  const file = join(dir, 'benchmarks.md');
  writeFileSync(
    file,
    '# Benchmarks\n\nIntro.\n\n<!-- bench:train:amd-epyc:start -->\nx\n<!-- bench:train:amd-epyc:end -->\n',
  );
  return file;
}

describe('updateBenchGoals', () => {
  it('inserts the table before the first section, then replaces rows by name and keeps the others', () => {
    const file = doc();
    updateBenchGoals(
      file,
      amd,
      [
        { row: 'step A', figure: '1.10x', goal: '>= 1.3x', met: false, otherCores: 0.01 },
        { row: 'trec | 1M', figure: '1.20x', goal: '>= 1.0x', met: true, otherCores: 0.05 },
      ],
      '2026-12-03',
    );
    let text = readFileSync(file, 'utf8');
    expect(text.indexOf('bench:goals:amd-epyc:start')).toBeLessThan(
      text.indexOf('bench:train:amd-epyc:start'),
    );
    expect(text).toContain('| step A | 1.10x | >= 1.3x | **missed** | 0.01 | 2026-12-03 |');
    expect(text).toContain('| trec \\| 1M | 1.20x | >= 1.0x | **met** | 0.05 | 2026-12-03 |');
    updateBenchGoals(
      file,
      amd,
      [{ row: 'step A', figure: '1.40x', goal: '>= 1.3x', met: true, otherCores: 0.9 }],
      '2026-12-04',
    );
    text = readFileSync(file, 'utf8');
    expect(text).toContain('| step A | 1.40x | >= 1.3x | not kept (contended) | 0.90 | 2026-12-04 |');
    expect(text).not.toContain('1.10x');
    expect(text).toContain('| trec \\| 1M | 1.20x');
    // Row order is kept: step A still before trec.
    expect(text.indexOf('| step A')).toBeLessThan(text.indexOf('| trec'));
    expect(text.match(/bench:goals:amd-epyc:start/g)).toHaveLength(1);
  });

  it('keeps one table per CPU family', () => {
    const file = doc();
    updateBenchGoals(file, amd, [{ row: 'r', figure: '1x', goal: 'g', met: true, otherCores: 0 }], 'd1');
    updateBenchGoals(file, intel, [{ row: 'r', figure: '2x', goal: 'g', met: true }], 'd2');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('| r | 1x | g | **met** | 0.00 | d1 |');
    expect(text).toContain('| r | 2x | g | **met** | unknown | d2 |');
    expect(text).toContain('### Goals on Intel Xeon');
  });
});
