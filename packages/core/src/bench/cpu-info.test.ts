import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBenchSection } from './bench-doc.js';
import { cpuInfo, parseCpuInfo } from './cpu-info.js';

const xeon = `processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse avx2 fma avx512f avx512bw avx512_vnni avx512_bf16\n`;
const epyc = `processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13 64-Core Processor\nflags\t\t: fpu sse avx2 fma\n`;

describe('parseCpuInfo', () => {
  it('names model, family and vector extensions', () => {
    const x = parseCpuInfo(xeon, 2);
    expect(x).toMatchObject({
      model: 'Intel(R) Xeon(R) Processor',
      family: 'Intel Xeon',
      slug: 'intel-xeon',
    });
    expect(x.extensions).toEqual(['AVX2', 'FMA', 'AVX-512F', 'AVX-512BW', 'AVX-512 VNNI', 'AVX-512 BF16']);
    expect(x.label).toBe(
      'Intel(R) Xeon(R) Processor; AVX2, FMA, AVX-512F, AVX-512BW, AVX-512 VNNI, AVX-512 BF16; 2 cores',
    );
    const a = parseCpuInfo(epyc, 2);
    expect(a).toMatchObject({ family: 'AMD EPYC', slug: 'amd-epyc', extensions: ['AVX2', 'FMA'] });
  });
  it('reads this machine', () => {
    expect(cpuInfo().model.length).toBeGreaterThan(0);
  });
});

describe('writeBenchSection', () => {
  it('replaces the family section and keeps the others', () => {
    const doc = join(mkdtempSync(join(tmpdir(), 'dv-bench-')), 'b.md');
    writeFileSync(
      doc,
      '# B\n\n<!-- bench:x:amd-epyc:start -->\nold amd\n<!-- bench:x:amd-epyc:end -->\n\n<!-- bench:y:amd-epyc:start -->\ny\n<!-- bench:y:amd-epyc:end -->\n',
    );
    writeBenchSection(doc, 'x', parseCpuInfo(xeon, 2), 'X', 'intel 1');
    writeBenchSection(doc, 'x', parseCpuInfo(xeon, 2), 'X', 'intel 2');
    const text = readFileSync(doc, 'utf8');
    expect(text).toContain('old amd');
    expect(text).not.toContain('intel 1');
    expect(text.indexOf('intel 2')).toBeGreaterThan(text.indexOf('old amd'));
    expect(text.indexOf('intel 2')).toBeLessThan(text.indexOf('bench:y:'));
    expect(text).toContain('## X — Intel Xeon\n\nCPU: Intel(R) Xeon(R) Processor; AVX2');
  });
});

describe('sampleCpu', () => {
  it('counts busy ticks that grow with work', async () => {
    const { otherProcessesCores, sampleCpu } = await import('./cpu-info.js');
    const a = sampleCpu();
    if (!a) return; // not Linux
    const until = performance.now() + 60;
    while (performance.now() < until) Math.sqrt(Math.random());
    const b = sampleCpu()!;
    expect(b.machine).toBeGreaterThanOrEqual(a.machine);
    expect(otherProcessesCores(a, b)).toBeGreaterThanOrEqual(0);
  });
});
