import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonlAppender, readJsonlAll } from '../index.js';
import { tmpDir } from '../test-utils/tmp.js';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, '..', 'test-utils', 'crash-writer.ts');

function startWriter(mode: string, path: string, count: number): ChildProcess {
  return spawn(
    process.execPath,
    ['--conditions=@dv/source', '--import', 'tsx', script, mode, path, String(count)],
    {
      cwd: join(here, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
}

/** Resolves once the child printed "started", then SIGKILLs it and waits for its exit. */
function killWhenStarted(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('started')) child.kill('SIGKILL');
      if (d.toString().includes('finished')) reject(new Error('child finished before it was killed'));
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
}

const Row = z.object({ i: z.number(), pad: z.string() });

describe('crash mid-write (kill -9)', () => {
  it('atomic writer: the target keeps its old content, never a partial file', async () => {
    const dir = tmpDir();
    const f = join(dir, 'out.jsonl');
    writeFileSync(f, '{"i":-1,"pad":""}\n');
    await killWhenStarted(startWriter('atomic', f, 100_000));
    expect(readFileSync(f, 'utf8')).toBe('{"i":-1,"pad":""}\n');
  });

  it('atomic writer: a target that did not exist does not appear', async () => {
    const dir = tmpDir();
    const f = join(dir, 'new.jsonl');
    await killWhenStarted(startWriter('atomic', f, 100_000));
    expect(existsSync(f)).toBe(false);
  });

  it('appender: every complete record survives and the log reads back in order', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    await killWhenStarted(startWriter('append', f, 100_000));
    const rows = await readJsonlAll(f, Row, { allowTruncatedTail: true });
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.map((r) => r.i)).toEqual(rows.map((_, k) => k));
  });

  it('appender grouping records per tick: the same, and a reopened appender continues on a record boundary', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    await killWhenStarted(startWriter('append-grouped', f, 100_000));
    const rows = await readJsonlAll(f, Row, { allowTruncatedTail: true });
    expect(rows.length).toBeGreaterThanOrEqual(70); // the groups written before the kill
    expect(rows.map((r) => r.i)).toEqual(rows.map((_, k) => k));
    const a = new JsonlAppender(f, Row, { groupPerTick: true });
    a.append({ i: rows.length, pad: '' });
    a.close();
    const again = await readJsonlAll(f, Row);
    expect(again.map((r) => r.i)).toEqual([...rows.map((r) => r.i), rows.length]);
  });
});

describe('JsonlAppender groupPerTick', () => {
  it('writes the records of one event-loop turn together, after the turn; close() writes what is left', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    const a = new JsonlAppender(f, Row, { groupPerTick: true });
    a.append({ i: 0, pad: '' });
    a.append({ i: 1, pad: '' });
    expect(() => a.append({ i: 'two', pad: '' } as unknown as z.infer<typeof Row>)).toThrow(/log\.jsonl/);
    expect(readFileSync(f, 'utf8')).toBe('');
    await new Promise((r) => setImmediate(r));
    expect(readFileSync(f, 'utf8')).toBe('{"i":0,"pad":""}\n{"i":1,"pad":""}\n');
    a.append({ i: 2, pad: '' });
    a.close();
    expect(readFileSync(f, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(a.count).toBe(3);
  });
});
