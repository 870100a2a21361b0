/**
 * A trainer run folder made by other code (issue 25): run.json records the run's key parts
 * (kind 'train-run', code digest of @dv/train); a rerun whose key differs only in the code part is
 * refused naming it, unless `reuseStale` accepts the folder (recorded in run.json, summary.json
 * and manifest.json). The code part is injected (`code`): the real sources are not edited.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCodeDigestMemo, codeDigest, contentHash, type TrainerConfig } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { initBackend } from '../backend/init-backend.js';
import { makeTinyWorld } from './test-utils/tiny-world.js';
import { TRAINER_CODE, trainRetriever } from './train-retriever.js';

/** A trainer config as written (defaults not applied). */
type TrainerConfigInput = z.input<typeof TrainerConfig>;

await initBackend();
const world = await makeTinyWorld(join(tmpDir('dv-stale-'), 'world'));
const config: TrainerConfigInput = {
  seed: 5,
  optimizer: { lr: 2e-3 },
  model: { maxQueryLength: 12, maxDocLength: 16 },
  batch: { batchSize: 4, hardNegatives: 1, steps: 4, shuffleBuffer: 4 },
  checkpoint: { everySteps: 2, keepLast: 2 },
  logEverySteps: 1,
};
const A = { '@dv/train': 'a'.repeat(64) };
const B = { '@dv/train': 'b'.repeat(64) };
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const run = (out: string, over: Partial<Parameters<typeof trainRetriever>[0]> = {}) =>
  trainRetriever({ config, data: world.mix, init: world.init, out, ...over });

describe('trainer run folders keyed by code', () => {
  it('run.json holds the key parts with the code digest of all of @dv/train', async () => {
    const out = tmpDir('dv-stale-real-');
    await run(out);
    const rec = json(join(out, 'run.json'));
    clearCodeDigestMemo();
    expect(rec.keyParts).toMatchObject({
      kind: 'train-run',
      inputs: { data: rec.dataDigest, init: rec.initDigest },
      code: { '@dv/train': codeDigest(TRAINER_CODE, import.meta.url).digest },
    });
    // unchanged code: a hit
    expect((await run(out)).alreadyComplete).toBe(true);
  }, 30_000);

  it('changed code is refused naming it; reuseStale accepts and records it; config changes stay refused', async () => {
    const out = tmpDir('dv-stale-code-');
    const first = await run(out, { code: A });
    expect(first.alreadyComplete).toBe(false);
    expect((await run(out, { code: A })).alreadyComplete).toBe(true);
    await expect(run(out, { code: B })).rejects.toThrow(
      /made by other trainer code \(code of @dv\/train changed\).*--reuse-stale/,
    );
    await expect(run(out, { code: B, config: { ...config, seed: 6 } })).rejects.toThrow(
      /different config, mix or init model \(code of @dv\/train changed; config seed: 5 -> 6\)/,
    );
    const reused = await run(out, { code: B, reuseStale: true });
    expect(reused).toMatchObject({ alreadyComplete: true, finalLoss: first.finalLoss });
    const record = { reusedStale: true, reasons: ['code of @dv/train changed'] };
    expect(reused.staleReuse).toMatchObject(record);
    expect(json(join(out, 'run.json')).staleReuse).toMatchObject(record);
    expect(json(join(out, 'run.json')).keyParts.code).toEqual(B);
    expect(json(join(out, 'manifest.json')).config.staleReuse).toMatchObject(record);
    // accepted: the folder now carries code B's key, so B needs no flag; A is now the stale one
    expect((await run(out, { code: B })).alreadyComplete).toBe(true);
    await expect(run(out, { code: A })).rejects.toThrow(/made by other trainer code/);
  }, 30_000);

  it('an unfinished stale run resumes with reuseStale, recorded in the manifest', async () => {
    const out = tmpDir('dv-stale-resume-');
    const stop = new AbortController();
    await expect(
      run(out, {
        code: A,
        signal: stop.signal,
        onEvent: (e) => {
          if (e.type === 'step' && e.step === 2) stop.abort(new Error('stop'));
        },
      }),
    ).rejects.toThrow('stop');
    await expect(run(out, { code: B })).rejects.toThrow(/made by other trainer code/);
    const r = await run(out, { code: B, reuseStale: true });
    expect(r).toMatchObject({ resumed: true, alreadyComplete: false, steps: 4 });
    const m = json(join(out, 'manifest.json'));
    expect(m.config.staleReuse).toMatchObject({ reusedStale: true, reasons: ['code of @dv/train changed'] });
    expect(m.notes.join('\n')).toContain('reused a run folder made by other trainer code');
  }, 30_000);

  it('a run.json written before code digests is stale code, and says so', async () => {
    const out = tmpDir('dv-stale-legacy-');
    await run(out, { code: A });
    const rec = json(join(out, 'run.json'));
    const { keyParts: _parts, ...legacy } = rec;
    legacy.digest = contentHash({
      config: rec.config,
      dataDigest: rec.dataDigest,
      initDigest: rec.initDigest,
    });
    writeFileSync(join(out, 'run.json'), JSON.stringify(legacy));
    await expect(run(out, { code: A })).rejects.toThrow(
      /run.json was made before code digests were recorded.*--reuse-stale/,
    );
    // a legacy record with another config is the config refusal
    await expect(run(out, { code: A, config: { ...config, seed: 6 } })).rejects.toThrow(
      /different config, mix or init model \(.*config seed: 5 -> 6/,
    );
    expect((await run(out, { code: A, reuseStale: true })).staleReuse?.reasons[0]).toMatch(
      /made before code digests/,
    );
  }, 30_000);
});
