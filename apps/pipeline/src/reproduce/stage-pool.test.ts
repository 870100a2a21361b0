/**
 * Stage workers (stage-pool.ts, stage-worker.ts) as real processes: the dv CLI started again as
 * `dv __stage-worker` from its TypeScript sources, sent stages of a real --quick run config.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DataError } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from './reproduce-config.js';
import { readStageRecord, runDag, stageDir } from './run-dag.js';
import { stagesOf } from './run-reproduce.js';
import { createStagePool, fromWireError, toWireError } from './stage-pool.js';

const cli = resolve(fileURLToPath(new URL('.', import.meta.url)), '../cli.ts');
const execArgv = ['--conditions=@dv/source', '--import', 'tsx'];

function quickRun(): { runDir: string; stages: ReturnType<typeof stagesOf>['stages'] } {
  const runDir = mkdtempSync(join(tmpdir(), 'dv-stage-pool-'));
  const config = resolveReproduceConfig({ profile: 'mini', quick: true });
  writeFileSync(join(runDir, 'config.json'), JSON.stringify(config));
  return { runDir, stages: stagesOf(config).stages };
}

describe('stage errors across the channel', () => {
  it('come back as the classes the CLI maps to exit codes, with their fields', () => {
    const data = fromWireError(toWireError(new DataError('bad record', 'mix.jsonl', 7)));
    expect(data).toBeInstanceOf(DataError);
    expect(data.message).toBe('mix.jsonl:7: bad record');
    expect((data as DataError).file).toBe('mix.jsonl');
    expect((data as DataError).line).toBe(7);
    const sys = Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), {
      code: 'ENOENT',
      path: '/x',
      syscall: 'open',
    });
    const back = fromWireError(toWireError(sys)) as NodeJS.ErrnoException;
    expect([back.code, back.path, back.syscall]).toEqual(['ENOENT', '/x', 'open']);
    const other = fromWireError(toWireError(new RangeError('off')));
    expect([other.name, other.message]).toEqual(['RangeError', 'off']);
    expect(fromWireError(toWireError('plain')).message).toBe('plain');
  });
});

describe('stage workers', () => {
  it('run the first stages of a --quick run in worker processes, two at a time', async () => {
    const { runDir, stages } = quickRun();
    // world, synth, mixes and the two lexical baselines: world first, then synth beside bm25
    const wanted = new Set(['world', 'synth', 'mixes', 'eval/bm25', 'eval/lexical-rule']);
    const pool = createStagePool({ entry: cli, execArgv });
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (d) => {
      log += String(d);
    });
    try {
      const r = await runDag({
        runDir,
        stages: stages.filter((s) => wanted.has(s.id)),
        stream,
        jobs: 2,
        executor: pool.execute,
      });
      expect(r.runs.map((x) => x.status)).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
    } finally {
      await pool.close();
    }
    for (const id of wanted) expect(readStageRecord(stageDir(runDir, id))).not.toBeNull();
    // the workers' own lines came back over the channel, prefixed with their stage
    expect(log).toMatch(/^ {2}eval\/bm25: FollowIR-form: p-MRR -?\d/m);
    expect(log).toContain('[5/');
    const world = JSON.parse(readFileSync(join(stageDir(runDir, 'world'), 'stage.json'), 'utf8'));
    expect(world.config.outputs.length).toBeGreaterThan(3);
  }, 180_000);

  it('refuse a stage whose key differs from the runner’s, and a stage the config does not have', async () => {
    const { runDir, stages } = quickRun();
    const world = stages.find((s) => s.id === 'world')!;
    const pool = createStagePool({ entry: cli, execArgv });
    const job = (id: string, key: string) => ({
      spec: { ...world, id },
      key,
      deps: {},
      hold: undefined,
      progressMode: 'lines' as const,
      write: () => {},
      ctx: {
        dir: stageDir(runDir, id),
        runDir,
        signal: new AbortController().signal,
        dep: () => {
          throw new Error('no deps');
        },
        depDir: () => '',
        log: () => {},
        progress: () => {
          throw new Error('no progress');
        },
        checkpoint: async () => {},
      },
    });
    try {
      await expect(pool.execute(job('world', 'f'.repeat(64)))).rejects.toThrow(
        /'world' has key [0-9a-f]{12} in the worker and ffffffffffff in dv reproduce: its code or .*config\.json changed during the run/,
      );
      // the same worker answers the next request
      await expect(pool.execute(job('no-such-stage', 'f'.repeat(64)))).rejects.toThrow(
        /'no-such-stage' is not a stage of .*config\.json/,
      );
    } finally {
      await pool.close();
    }
    expect(existsSync(join(stageDir(runDir, 'world'), 'stage.json'))).toBe(false);
  }, 120_000);

  it('a worker killed mid-stage fails that stage, naming it; close() reaps the rest', async () => {
    const { runDir, stages } = quickRun();
    const pool = createStagePool({ entry: cli, execArgv });
    let pid = 0;
    const world = stages.find((s) => s.id === 'world')!;
    const run = runDag({
      runDir,
      stages: [world],
      stream: new PassThrough(),
      jobs: 2,
      executor: pool.execute,
    });
    // find the worker: the one child process this test started
    for (let i = 0; i < 200 && pid === 0; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      pid = workerPids()[0] ?? 0;
    }
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await expect(run).rejects.toThrow(
      new RegExp(`stage worker \\(pid ${pid}\\) running 'world' died of SIGKILL`),
    );
    await pool.close();
    expect(workerPids()).toEqual([]);
  }, 120_000);
});

/** PIDs of this process's children that are stage workers (from /proc). */
function workerPids(): number[] {
  const out: number[] = [];
  for (const task of readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)) {
    if (!task) continue;
    try {
      if (readFileSync(`/proc/${task}/cmdline`, 'utf8').includes('__stage-worker')) out.push(Number(task));
    } catch {
      // gone already
    }
  }
  return out;
}
