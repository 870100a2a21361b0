import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { presets, SynthesisRunConfig } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { synthesisBackendNames, synthesisBackends } from './backend-registry.js';
import { createSynthesisRun } from './create-synthesis-run.js';
import type { SynthesisConfigError } from './synthesis-config-error.js';
import { synthesisConfigFromPreset } from './synthesis-config-from-preset.js';
import type { SynthesisEvent } from './synthesis-event.js';
import { plainSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';
import { createJudge, synthesisJudges } from './verify/judge-registry.js';

const runConfig = (synthesis: Parameters<typeof synthesisConfigFromPreset>[1], extra = {}) => {
  const dir = tempDir();
  return SynthesisRunConfig.parse({
    seedsPath: writeSeeds(plainSeeds(4), dir),
    outDir: join(dir, 'out'),
    synthesis: synthesisConfigFromPreset('mini', synthesis),
    ...extra,
  });
};

const configError = async (p: Promise<unknown>): Promise<SynthesisConfigError> => {
  try {
    await p;
  } catch (err) {
    return err as SynthesisConfigError;
  }
  throw new Error('expected a SynthesisConfigError');
};

describe('synthesis registries', () => {
  it('list every backend and judge name of the core schema, frozen', () => {
    expect(synthesisBackendNames).toEqual(['offline', 'openai', 'batch-export', 'batch-import']);
    expect(Object.isFrozen(synthesisBackends)).toBe(true);
    expect(Object.isFrozen(synthesisJudges)).toBe(true);
    // only an endpoint runs requests concurrently
    expect(synthesisBackendNames.filter((n) => synthesisBackends[n].concurrent)).toEqual(['openai']);
  });

  it('judges default to their registered threshold and refuse one above their highest score', () => {
    expect(createJudge('lexical', undefined).threshold).toBe(0.25);
    expect(createJudge('lexical-text', 0.5).threshold).toBe(0.5);
    expect(() => createJudge('lexical', 5)).toThrow(
      /judgeThreshold 5 is above the highest score the lexical judge gives \(2\)/,
    );
    expect(() => createJudge('llm', undefined)).toThrow(/baseURLs is required/);
  });
});

describe('synthesisConfigFromPreset', () => {
  it('lexical and lexical-text judge title and text only; lexical-metadata also reads the metadata', () => {
    expect(createJudge('lexical', undefined).name).toBe('lexical');
    expect(createJudge('lexical-text', undefined).name).toBe('lexical');
    expect(createJudge('lexical-metadata', undefined).name).toBe('lexical-metadata');
  });

  it('gives an endpoint 16 requests in flight under mini unless told, and keeps the paper value', () => {
    expect(synthesisConfigFromPreset('mini', { backend: 'openai' }).concurrency).toBe(16);
    expect(synthesisConfigFromPreset('mini', { backend: 'openai', concurrency: 3 }).concurrency).toBe(3);
    expect(synthesisConfigFromPreset('mini', {}).concurrency).toBe(presets.mini.config.synthesis.concurrency);
    expect(synthesisConfigFromPreset('paper', { backend: 'openai' }).concurrency).toBe(64);
  });

  it('names the offline model, defaults the judge to lexical, and drops it when verification is off', () => {
    const paperOffline = synthesisConfigFromPreset('paper', { backend: 'offline' });
    expect(paperOffline.model).toBe('offline-reverser');
    expect(paperOffline.judge).toBe('lexical');
    const off = synthesisConfigFromPreset('mini', { verify: false, judge: 'llm' });
    expect(off.verify).toBe(false);
    expect(off.judge).toBeUndefined();
  });
});

describe('createSynthesisRun', () => {
  it('runs the offline backend from the config and reports a typed start event', async () => {
    const events: SynthesisEvent[] = [];
    const config = runConfig({ judge: 'lexical-text' });
    const run = await createSynthesisRun(config, {
      onEvent: (e) => events.push(e),
      progressStream: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    expect(run.backend?.name).toBe('offline');
    expect(run.judge?.threshold).toBe(0.25);
    const r = await run.run();
    if (r.kind !== 'synthesized') throw new Error(`expected a run, got ${r.kind}`);
    expect(r.summary.seeds).toBe(plainSeeds(4).length);
    expect(r.summary.recorded).toBe(plainSeeds(4).length);
    expect(events).toEqual([
      expect.objectContaining({ type: 'start', backend: 'offline', judge: 'lexical', shard: null }),
    ]);
    expect(existsSync(join(config.outDir, 'manifest.json'))).toBe(true);
  });

  it('batch-export writes the request file and runs nothing', async () => {
    const config = runConfig({ backend: 'batch-export', model: 'm' });
    const run = await createSynthesisRun(config);
    expect(run.backend).toBeUndefined();
    const r = await run.run();
    expect(r.kind).toBe('exported');
    if (r.kind === 'exported') expect(r.requests).toBeGreaterThan(0);
    expect(existsSync(join(config.outDir, 'log.jsonl'))).toBe(false);
  });

  it('refuses configs that cannot run before anything is sent, naming the field', async () => {
    expect((await configError(createSynthesisRun(runConfig({ backend: 'openai' })))).field).toBe('baseURLs');
    expect((await configError(createSynthesisRun(runConfig({ judge: 'llm' })))).field).toBe('baseURLs');
    expect((await configError(createSynthesisRun(runConfig({ backend: 'batch-import' })))).field).toBe(
      'batchOutputs',
    );
    const t = await configError(createSynthesisRun(runConfig({ judgeThreshold: 3 })));
    expect(t.describe((f) => `--${f}`)).toMatch(/^--judgeThreshold 3 is above/);
    const tpl = await configError(createSynthesisRun(runConfig({ templateId: 'nope' })));
    expect(tpl.describe()).toMatch(/^unknown prompt template 'nope'/);
  });
});
