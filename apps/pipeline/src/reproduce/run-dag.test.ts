import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DataError } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { explainDag, renderExplanation } from './explain-dag.js';
import {
  InterruptedError,
  readStageRecord,
  runDag,
  type StageExecutor,
  StageSelectionError,
  stageDir,
  topologicalOrder,
} from './run-dag.js';
import type { StageSpec } from './stage.js';
import { outputDigest, stageKey } from './stage-key.js';

/** A toy code package: `lib/` (stage c's code) and `world/` (stage a's). */
function toyPackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'dv-dag-code-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: '@t/toy', version: '1.0.0' }));
  for (const d of ['lib', 'world']) {
    mkdirSync(join(root, d));
    writeFileSync(join(root, d, 'index.ts'), `export const ${d} = 1;\n`);
  }
  return root;
}
const TOY_CODE = toyPackage();

/** A toy pipeline a -> b -> c, plus d (independent); each stage writes its config + inputs. */
function toy(calls: string[], config: Record<string, unknown> = {}): StageSpec[] {
  const code = (folder: string) => [{ package: '@t/toy', root: TOY_CODE, folders: [folder] }];
  const mk = (id: string, group: StageSpec['group'], deps: string[]): StageSpec => ({
    id,
    group,
    deps,
    code: id === 'c' ? code('lib') : id === 'a' ? code('world') : [],
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
  it('change with the config slice, the code, the salt and any input digest, not with key order', () => {
    const base = { id: 's', config: { a: 1, b: 2 }, deps: { x: 'd1' }, code: [{ package: '@dv/core' }] };
    const k = stageKey(base).key;
    expect(stageKey({ ...base, config: { b: 2, a: 1 } }).key).toBe(k);
    expect(stageKey({ ...base, config: { a: 1, b: 3 } }).key).not.toBe(k);
    expect(stageKey({ ...base, salt: '2' }).key).not.toBe(k);
    expect(stageKey({ ...base, deps: { x: 'd2' } }).key).not.toBe(k);
    expect(stageKey({ ...base, id: 't' }).key).not.toBe(k);
    expect(stageKey({ ...base, code: [{ package: '@dv/eval' }] }).key).not.toBe(k);
    expect(stageKey(base).code['@dv/core']!.files).toBeGreaterThan(40);
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

  it('changed code redoes exactly the stages whose code refs cover it, and explain says why first', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    expect(explainDag({ runDir, stages: toy([]) }).map((e) => e.status)).toEqual([
      'up to date',
      'up to date',
      'up to date',
      'up to date',
    ]);
    calls.length = 0;
    const lib = join(TOY_CODE, 'lib', 'index.ts');
    const before = readFileSync(lib, 'utf8');
    try {
      writeFileSync(lib, `${before}export const more = 2;\n`);
      const explained = explainDag({ runDir, stages: toy([]) });
      expect(explained.find((e) => e.id === 'c')).toMatchObject({
        status: 'stale',
        action: 'run',
        reasons: ['code of @t/toy:lib changed (in @t/toy)'],
      });
      expect(explained.filter((e) => e.action === 'keep').map((e) => e.id)).toEqual(['a', 'b', 'd']);
      expect(renderExplanation(explained)).toMatch(/3 kept, 1 to run, 0 to resume/);
      const r = await runDag({ runDir, stages: toy(calls), stream: quiet() });
      expect(calls).toEqual(['c']);
      expect(r.records.get('c')?.parts?.code['@t/toy:lib']).toMatch(/^[0-9a-f]{64}$/);
      expect(r.records.get('c')?.code?.['@t/toy:lib']).toMatchObject({ files: 1, scope: ['lib'] });
      // upstream code: a reruns; b and c wait on a's outputs, which come out the same bytes
      calls.length = 0;
      writeFileSync(join(TOY_CODE, 'world', 'index.ts'), '// a comment only\nexport const world = 1;\n');
      const e2 = explainDag({ runDir, stages: toy([]) });
      expect(e2.map((e) => `${e.id}:${e.action}`)).toEqual([
        'a:run',
        'b:run if inputs change',
        'c:run if inputs change',
        'd:keep',
      ]);
      await runDag({ runDir, stages: toy(calls), stream: quiet() });
      expect(calls).toEqual(['a']);
    } finally {
      writeFileSync(lib, before);
      writeFileSync(join(TOY_CODE, 'world', 'index.ts'), 'export const world = 1;\n');
    }
  });

  it('explain: missing stages, a same-key interrupted stage resumes, --from forces', async () => {
    const runDir = tmp();
    expect(explainDag({ runDir, stages: toy([]) }).map((e) => `${e.id}:${e.status}:${e.action}`)).toEqual([
      'a:missing:run',
      'b:missing:run',
      'c:missing:run',
      'd:missing:run',
    ]);
    await runDag({ runDir, stages: toy([]), stream: quiet() });
    const forced = explainDag({ runDir, stages: toy([]), from: 'synth' });
    expect(forced.map((e) => `${e.id}:${e.action}`)).toEqual(['a:keep', 'b:run', 'c:run', 'd:keep']);
    expect(forced[1]!.reasons).toEqual(['--from']);
    // a stage killed after it started (its .stage-key written, no stage.json) resumes
    rmSync(join(stageDir(runDir, 'b'), 'stage.json'));
    expect(explainDag({ runDir, stages: toy([]) }).map((e) => `${e.id}:${e.status}:${e.action}`)).toEqual([
      'a:up to date:keep',
      'b:missing:resume',
      'c:pending:run if inputs change',
      'd:up to date:keep',
    ]);
    // an old record without key parts (made before code digests) is stale and says so
    const stageJson = join(stageDir(runDir, 'd'), 'stage.json');
    const m = JSON.parse(readFileSync(stageJson, 'utf8'));
    delete m.config.parts;
    m.config.key = 'old';
    writeFileSync(stageJson, JSON.stringify(m));
    expect(explainDag({ runDir, stages: toy([]) }).find((e) => e.id === 'd')?.reasons).toEqual([
      'recorded without key parts (made before code digests were recorded)',
    ]);
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

  // issue 25: only sizes were compared, so a same-size corruption was reused as finished
  it('an output changed in place (same size) or truncated makes its stage rerun, saying why', async () => {
    const runDir = tmp();
    const calls: string[] = [];
    await runDag({ runDir, stages: toy(calls), stream: quiet() });
    calls.length = 0;
    const out = join(stageDir(runDir, 'b'), 'out.txt');
    const good = readFileSync(out, 'utf8');
    writeFileSync(out, good.replace('b(1)', 'b(2)'));
    const log = new PassThrough();
    let text = '';
    log.on('data', (d) => {
      text += String(d);
    });
    await runDag({ runDir, stages: toy(calls), stream: log });
    // b wrote the same bytes again, so c (keyed on b's output digest) stays valid
    expect(calls).toEqual(['b']);
    expect(text).toMatch(
      new RegExp(
        `b: finished before, but ${out.replaceAll('.', '\\.')} changed since the stage finished \\(sha256 [0-9a-f]{12}, recorded [0-9a-f]{12}\\); running it again`,
      ),
    );
    expect(readFileSync(out, 'utf8')).toBe(good);
    writeFileSync(out, good.slice(0, 3));
    calls.length = 0;
    text = '';
    await runDag({ runDir, stages: toy(calls), stream: log });
    expect(calls).toEqual(['b']);
    expect(text).toContain(`has 3 bytes, ${good.length} when the stage finished; running it again`);
    // --only c: b, a finished input of c, was damaged since: it is run again, not refused
    writeFileSync(out, good.replace('b(1)', 'b(3)'));
    calls.length = 0;
    await runDag({ runDir, stages: toy(calls), stream: quiet(), only: 'c' });
    expect(calls).toEqual(['b', 'c']);
    expect(readFileSync(out, 'utf8')).toBe(good);
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
      code: [],
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
      code: [],
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

describe('runDag with jobs', () => {
  /** An executor that runs each stage in this process after a pause, logging start and end. */
  function pausing(events: string[], ms: (id: string) => number, fail?: string): StageExecutor {
    let now = 0;
    let max = 0;
    const exec: StageExecutor = async (job) => {
      now += 1;
      max = Math.max(max, now);
      events.push(`start ${job.spec.id}`);
      try {
        await new Promise((ok) => setTimeout(ok, ms(job.spec.id)));
        if (job.spec.id === fail) throw new DataError('bad record', 'x.jsonl', 3);
        return await job.spec.run(job.ctx);
      } finally {
        now -= 1;
        events.push(`end ${job.spec.id}`);
      }
    };
    return Object.assign(exec, { max: () => max });
  }

  it('runs independent stages side by side, never more than jobs, each after its inputs, with the same outputs', async () => {
    const serialDir = tmp();
    await runDag({ runDir: serialDir, stages: toy([]), stream: quiet() });
    const runDir = tmp();
    const events: string[] = [];
    // d (independent) is slow: a -> b -> c run beside it
    const exec = pausing(events, (id) => (id === 'd' ? 300 : 40));
    const r = await runDag({ runDir, stages: toy([]), stream: quiet(), jobs: 2, executor: exec });
    expect((exec as unknown as { max(): number }).max()).toBe(2);
    expect(events.indexOf('start d')).toBeLessThan(events.indexOf('end a'));
    expect(events.indexOf('end a')).toBeLessThan(events.indexOf('start b'));
    expect(events.indexOf('end b')).toBeLessThan(events.indexOf('start c'));
    expect(events.indexOf('end c')).toBeLessThan(events.indexOf('end d'));
    expect(r.runs.map((x) => `${x.id} ${x.status}`)).toEqual(['a ran', 'b ran', 'c ran', 'd ran']);
    for (const id of ['a', 'b', 'c', 'd'])
      expect(readFileSync(join(stageDir(runDir, id), 'out.txt'), 'utf8')).toBe(
        readFileSync(join(stageDir(serialDir, id), 'out.txt'), 'utf8'),
      );
    // a rerun finds everything up to date, whichever way it ran
    const again = await runDag({ runDir, stages: toy([]), stream: quiet(), jobs: 2, executor: exec });
    expect(again.runs.every((x) => x.status === 'cached')).toBe(true);
  });

  it('one job runs the stages in stage order, as without jobs', async () => {
    const events: string[] = [];
    await runDag({
      runDir: tmp(),
      stages: toy([]),
      stream: quiet(),
      jobs: 1,
      executor: pausing(events, () => 5),
    });
    expect(events.filter((e) => e.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d']);
  });

  it('a failed stage starts nothing more, lets the running one finish and throws its error', async () => {
    const runDir = tmp();
    const events: string[] = [];
    const exec = pausing(events, (id) => (id === 'd' ? 200 : 20), 'a');
    const err = await runDag({ runDir, stages: toy([]), stream: quiet(), jobs: 2, executor: exec }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).message).toBe('x.jsonl:3: bad record');
    // d was running beside a: it finished and kept its record; b and c never started
    expect(events).toEqual(['start a', 'start d', 'end a', 'end d']);
    expect(readStageRecord(stageDir(runDir, 'd'))).not.toBeNull();
    expect(readStageRecord(stageDir(runDir, 'a'))).toBeNull();
  });

  it('an abort starts nothing more and ends as interrupted once the running stages return', async () => {
    const controller = new AbortController();
    const events: string[] = [];
    const exec: StageExecutor = async (job) => {
      events.push(job.spec.id);
      controller.abort();
      return job.spec.run(job.ctx);
    };
    await expect(
      runDag({
        runDir: tmp(),
        stages: toy([]),
        stream: quiet(),
        jobs: 2,
        executor: exec,
        signal: controller.signal,
      }),
    ).rejects.toThrow(InterruptedError);
    expect(events).toEqual(['a']);
  });
});
