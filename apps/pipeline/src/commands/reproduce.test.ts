import { existsSync, mkdtempSync } from 'node:fs';
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
      ['--seeds', '5,5'],
      ['--seeds', '5,x'],
      ['--world-seed', 'w'],
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

  it('--seeds LIST and --world-seed choose the seeds and the world; --explain runs nothing', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dv-reproduce-cli-')), 'run');
    const r = await dv([
      'reproduce',
      '--quick',
      '--explain',
      '--seeds',
      '5,99',
      '--world-seed',
      '7',
      '--out',
      out,
    ]);
    expect(r.code, r.err).toBe(0);
    const trainIds = [...r.out.matchAll(/^(train\/\S+)/gm)].map((m) => m[1]);
    expect(trainIds).toContain('train/mini-bert/ins-dv/seed-5');
    expect(trainIds).toContain('train/mini-bert/ins-dv/seed-99');
    expect(trainIds.filter((id) => id?.includes('seed-13'))).toEqual([]);
    expect(r.out).toMatch(/0 kept, \d+ to run/);
    expect(existsSync(out)).toBe(false); // nothing written
    const { resolveReproduceConfig } = await import('../reproduce/reproduce-config.js');
    const world = resolveReproduceConfig({ profile: 'mini', quick: true, worldSeed: 7 }).world;
    expect(world.seed).toBe(7);
    expect(() => resolveReproduceConfig({ profile: 'paper', worldSeed: 7 })).toThrow(/mini world/);
  });
});
