import { describe, expect, it } from 'vitest';
import { InFlight } from './in-flight.js';

/** A task the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('whenBelow waits until a task finishes, then lets exactly one more in', async () => {
    const f = new InFlight();
    const tasks = [deferred(), deferred(), deferred()];
    for (const t of tasks) f.add(t.promise);
    let passed = false;
    const wait = f.whenBelow(3).then(() => {
      passed = true;
    });
    await Promise.resolve();
    expect([passed, f.size]).toEqual([false, 3]);
    tasks[1]!.resolve();
    await wait;
    expect([passed, f.size]).toEqual([true, 2]);
    await f.whenBelow(3); // already below: returns at once
    tasks[0]!.resolve();
    tasks[2]!.resolve();
    await f.all();
    expect(f.size).toBe(0);
  });

  it('a failed task makes the pending wait throw its error (as Promise.race did), and all() too', async () => {
    const f = new InFlight();
    const a = deferred();
    const b = deferred();
    f.add(a.promise);
    f.add(b.promise);
    const wait = f.whenBelow(2);
    a.reject(new Error('disk full'));
    await expect(wait).rejects.toThrow('disk full');
    await expect(f.whenBelow(5)).rejects.toThrow('disk full');
    b.resolve();
    await expect(f.all()).rejects.toThrow('disk full');
  });
});
