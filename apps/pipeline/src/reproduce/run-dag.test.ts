import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStageRecord, runDag, StageSelectionError, stageDir, topologicalOrder } from './run-dag.js';
import type { StageSpec } from './stage.js';
import { outputDigest, stageKey } from './stage-key.js';

/** A toy pipeline a -> b -> c, plus d (independent); each stage writes its config + inputs. */
function toy(calls: string[], config: Record<string, unknown> = {}): StageSpec[] {
  const mk = (id: string, group: StageSpec['group'], deps: string[]): StageSpec => ({
    id,
    group,
    deps,
    version: '1',
    config: config[id] ?? { n: 1 },
    estimateSeconds: 1,
    async run(ctx) {
      calls.push(id);
      const inputs = deps.map((d) => readFileSync(join(ctx.depDir(d), 'out.txt'), 'utf8')).join('+');
      const out = join(ctx.dir, 'out.txt');
      writeFileSync(out, `${id}(${JSON.stringify((config[id] as { out?: unknown })?.out ?? 1)})[${inputs}]`);
      return { outputs: [out], summary: { id } };
    },
  });
  return [mk('a', 'world', []), mk('b', 'synth', ['a']), mk('c', 'train', ['b']), mk('d', 'eval', [])];
}

const quiet = () => new PassThrough();
const tmp = () => mkdtempSync(join(tmpdir(), 'dv-dag-'));

describe('stage keys', () => {
  it('change with the config slice, the version and any input digest, not with key order', () => {
    const base = { id: 's', version: '1', config: { a: 1, b: 2 }, deps: { x: 'd1' } };
    const k = stageKey(base);
    expect(stageKey({ ...base, config: { b: 2, a: 1 } })).toBe(k);
    expect(stageKey({ ...base, config: { a: 1, b: 3 } })).not.toBe(k);
    expect(stageKey({ ...base, version: '2' })).not.toBe(k);
    expect(stageKey({ ...base, deps: { x: 'd2' } })).not.toBe(k);
    expect(stageKey({ ...base, id: 't' })).not.toBe(k);
  });
  it('output digests ignore output order but not content', () => {
    const a = { path: 'a', sha256: 'a'.repeat(64), bytes: 1 };
    const b = { path: 'b', sha256: 'b'.repeat(64), bytes: 2 };
    expect(outputDigest([a, b])).toBe(outputDigest([b, a]));
    expect(outputDigest([a, { ...b, sha256: 'c'.repeat(64) }])).not.toBe(outputDigest([a, b]));
  });
});

describe('runDag', () => {
  it('runs in dependency order, then skips everything on a rerun', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    const r1 = await runDag({ runDir, stages: toy(calls), stream: quiet() });
    expect(calls).toEqual(['a', 'b', 'c', 'd']);
    expect(r1.runs.map((r) => r.status)).toEqual(['ran', 'ran', 'ran', 'ran']);
    expect(readFileSync(join(stageDir(runDir, 'c'), 'out.txt'), 'utf8')).toBe('c(1)[b(1)[a(1)[]]]');
    const r2 = await runDag({ runDir, stages: toy(calls), stream: quiet() });
    expect(calls).toHaveLength(4);
    expect(r2.runs.map((r) => r.status)).toEqual(['cached', 'cached', 'cached', 'cached']);
    expect(readStageRecord(stageDir(runDir, 'b'))?.summary).toEqual({ id: 'b' });
  });

  it('a changed config slice redoes that stage and its dependants only', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    calls.length = 0;
    await runDag({ runDir, stages: toy(calls, { b: { n: 2, out: 2 } }), stream: quiet() });
    expect(calls).toEqual(['b', 'c']);
    expect(readFileSync(join(stageDir(runDir, 'c'), 'out.txt'), 'utf8')).toBe('c(1)[b(2)[a(1)[]]]');
  });

  it('a rerun that writes the same bytes leaves dependants valid', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    calls.length = 0;
    // new slice (so b reruns) but the same output bytes: c's inputs did not change
    await runDag({ runDir, stages: toy(calls, { b: { n: 3 } }), stream: quiet() });
    expect(calls).toEqual(['b']);
  });

  it('a deleted output makes its stage rerun', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    calls.length = 0;
    writeFileSync(join(stageDir(runDir, 'a'), 'out.txt'), 'tampered, other size');
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    expect(calls).toEqual(['a']);
  });

  it('--from redoes a stage and everything downstream; --only just the stage', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    calls.length = 0;
    await runDag({ runDir, stages: toy(calls), from: 'synth', stream: quiet() });
    expect(calls).toEqual(['b', 'c']);
    calls.length = 0;
    const r = await runDag({ runDir, stages: toy(calls), only: 'b', stream: quiet() });
    expect(calls).toEqual(['b']);
    expect(r.runs.find((x) => x.id === 'c')?.status).toBe('skipped');
  });

  it('--only refuses to run a stage whose dependency never finished', async () => {
    const runDir = tmp();
    await expect(runDag({ runDir, stages: toy([]), only: 'c', stream: quiet() })).rejects.toThrow(
      /'c' needs 'b'.*has not finished/,
    );
    await expect(runDag({ runDir, stages: toy([]), only: 'nope', stream: quiet() })).rejects.toThrow(
      /no stage matches 'nope'/,
    );
  });

  it('keeps a same-key partial folder for the stage to resume, clears one from another key', async () => {
    const runDir = tmp();
    const seen: boolean[] = [];
    let fail = true;
    const stage = (n: number): StageSpec => ({
      id: 'p',
      group: 'train',
      deps: [],
      version: '1',
      config: { n },
      estimateSeconds: 1,
      async run(ctx) {
        const partial = join(ctx.dir, 'partial.txt');
        seen.push(existsSync(partial));
        writeFileSync(partial, 'half');
        if (fail) throw new Error('crash');
        return { outputs: [partial] };
      },
    });
    await expect(runDag({ runDir, stages: [stage(1)], stream: quiet() })).rejects.toThrow('crash');
    fail = false;
    await runDag({ runDir, stages: [stage(1)], stream: quiet() });
    expect(seen).toEqual([false, true]);
    await runDag({ runDir, stages: [stage(2)], stream: quiet() });
    expect(seen).toEqual([false, true, false]);
  });

  it('rejects cycles, unknown dependencies, unsafe ids and outputs outside the stage folder', async () => {
    const s = (id: string, deps: string[]): StageSpec => ({
      id,
      group: 'world',
      deps,
      version: '1',
      config: null,
      estimateSeconds: 0,
      run: async () => ({ outputs: [] }),
    });
    expect(() => topologicalOrder([s('a', ['b']), s('b', ['a'])])).toThrow(/cycle: a -> b -> a/);
    expect(() => topologicalOrder([s('a', ['zz'])])).toThrow(StageSelectionError);
    expect(() => topologicalOrder([s('../x', [])])).toThrow(/invalid stage id/);
    expect(() => stageDir('/r', 'a/../../b')).toThrow(StageSelectionError);
    const runDir = tmp();
    const escaping: StageSpec = { ...s('e', []), run: async () => ({ outputs: [join(runDir, 'x.txt')] }) };
    writeFileSync(join(runDir, 'x.txt'), 'x');
    await expect(runDag({ runDir, stages: [escaping], stream: quiet() })).rejects.toThrow(
      /outside its folder/,
    );
  });
});
