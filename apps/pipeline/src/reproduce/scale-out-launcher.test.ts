import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from './reproduce-config.js';
import { ENGINE_SCRIPT_ARGS, resolveScaleOutLaunch } from './scale-out-launcher.js';
import { buildPaperStages } from './stages/paper/build-paper-stages.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-scale-out-launcher-'));
/** An executable file `name` in folder `d` (created). */
function exe(d: string, name: string): string {
  mkdirSync(d, { recursive: true });
  const p = join(d, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}
const venv = join(dir, 'venv');
const venvTorchrun = exe(join(venv, 'bin'), 'torchrun');
const pathDir = join(dir, 'path');
const pathTorchrun = exe(pathDir, 'torchrun');
exe(pathDir, 'my-accelerate');
const empty = join(dir, 'empty');
mkdirSync(empty);

let n = 0;
/** The paper preset's `paper` section with this compute and scaleOut (through --config). */
function paper(scaleOut: Record<string, unknown> | undefined, compute = 'scale-out') {
  const file = join(dir, `config-${n++}.json`);
  writeFileSync(file, JSON.stringify({ paper: { compute, ...(scaleOut ? { scaleOut } : {}) } }));
  return resolveReproduceConfig({ profile: 'paper', configFile: file }).paper!;
}
const torchrun = (n: number) => ['torchrun', '--standalone', '--nproc_per_node', String(n)];

describe('resolveScaleOutLaunch: where the scale-out engine is launched from', () => {
  it('torchrun: $VIRTUAL_ENV/bin first, then PATH, a path as given; none found: no launch', () => {
    const p = paper({ command: 'torchrun', nprocPerNode: 2 });
    expect(resolveScaleOutLaunch(p, { VIRTUAL_ENV: venv, PATH: pathDir })).toEqual({
      argv: [venvTorchrun, ...torchrun(2).slice(1), ...ENGINE_SCRIPT_ARGS],
      spec: torchrun(2),
      found: 'VIRTUAL_ENV',
    });
    expect(resolveScaleOutLaunch(p, { PATH: `${empty}:${pathDir}` })?.argv[0]).toBe(pathTorchrun);
    expect(resolveScaleOutLaunch(p, { PATH: empty })).toBeNull();
    const byPath = resolveScaleOutLaunch(paper({ command: venvTorchrun }), { PATH: empty });
    expect(byPath).toMatchObject({ found: 'command', spec: torchrun(1) });
    expect(byPath?.argv[0]).toBe(venvTorchrun);
    expect(resolveScaleOutLaunch(paper({ command: join(empty, 'torchrun') }), { PATH: pathDir })).toBeNull();
  });

  it('a configured launcher wins; a program that is not torchrun, launch: false or another engine: no launch', () => {
    const env = { VIRTUAL_ENV: venv, PATH: pathDir };
    const a = resolveScaleOutLaunch(
      paper({ command: 'torchrun', launcher: 'my-accelerate launch --num_processes 2' }),
      env,
    );
    expect(a).toEqual({
      argv: [join(pathDir, 'my-accelerate'), 'launch', '--num_processes', '2', ...ENGINE_SCRIPT_ARGS],
      spec: ['my-accelerate', 'launch', '--num_processes', '2'],
      found: 'launcher',
    });
    expect(resolveScaleOutLaunch(paper({ command: 'torchrun', launcher: ['no-such-srun'] }), env)).toBeNull();
    expect(resolveScaleOutLaunch(paper({ command: process.execPath }), env)).toBeNull();
    expect(resolveScaleOutLaunch(paper({ command: 'torchrun', launch: false }), env)).toBeNull();
    expect(resolveScaleOutLaunch(paper({ command: 'torchrun', engine: 'tevatron' }), env)).toBeNull();
    expect(resolveScaleOutLaunch(paper({ command: 'torchrun' }, 'gpu'), env)).toBeNull();
  });

  it('with a launcher the DAG trains through the engine and goes on to eval and the report', () => {
    const file = join(dir, 'c.json');
    writeFileSync(
      file,
      JSON.stringify({ paper: { compute: 'scale-out', scaleOut: { command: 'torchrun', nprocPerNode: 2 } } }),
    );
    const c = resolveReproduceConfig({ profile: 'paper', configFile: file });
    const launch = resolveScaleOutLaunch(c.paper!, { VIRTUAL_ENV: venv, PATH: empty })!;
    const built = buildPaperStages(c, { launch });
    expect(built.scaleOut).toBe(false);
    expect(built.launch).toBe(launch);
    const groups = new Set(built.stages.map((s) => s.group));
    for (const g of ['train', 'benchmarks', 'eval', 'report']) expect(groups.has(g as never), g).toBe(true);
    const train = built.stages.filter((s) => s.group === 'train');
    expect(train).toHaveLength(2 * 4 * 3);
    // keyed by the launcher as configured, not where it was found; the shipped script is in the salt
    expect(train[0]!.config).toMatchObject({ nprocPerNode: 2, launcher: torchrun(2) });
    expect(JSON.stringify(train[0]!.config)).not.toContain(venv);
    expect(train[0]!.salt).toMatch(/^dv_st_train\.py [0-9a-f]{64}$/);
    expect(train[0]!.code.map((r) => r.label ?? r.package)).toEqual([
      '@dv/train',
      '@dv/pipeline:paper/engine-train-stage.ts',
    ]);
    const stop = buildPaperStages(c, { launch: null });
    expect(stop.scaleOut).toBe(true);
    expect(stop.stages.some((s) => s.group === 'eval')).toBe(false);
  });
});
