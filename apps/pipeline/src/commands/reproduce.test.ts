import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from './root.js';

async function dv(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += String(d);
  });
  stderr.on('data', (d) => {
    err += String(d);
  });
  const code = await runCommand(rootCommand, args, { stdout, stderr });
  return { code, out, err };
}

describe('dv reproduce', () => {
  it('--help describes stages, profiles and the run folder', async () => {
    const r = await dv(['reproduce', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--quick/);
    expect(r.out).toMatch(/world -> synth -> mixes -> pretrain -> train -> eval -> report/);
  });
  it('usage errors exit 2 with one line, before any stage runs', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dv-reproduce-cli-')), 'run');
    for (const args of [
      ['--profile', 'huge'],
      ['--seeds', '0'],
      ['--backbones', 'some'],
      ['--quick', '--out', out, '--from', 'no-such-stage'],
      ['--quick', '--out', out, '--from', 'synth', '--only', 'eval'],
    ]) {
      const r = await dv(['reproduce', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/^dv reproduce: /);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });
});
