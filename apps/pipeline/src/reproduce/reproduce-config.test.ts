import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeConfig, RunConfig, runOverlayInput, runOverlays, unknownConfigKeys } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { configDifferences, reproduceCommandOf, resolveReproduceConfig } from './reproduce-config.js';

const REPRODUCE_PROFILES = { mini: RunConfig.parse(runOverlayInput('mini')) };

const dir = mkdtempSync(join(tmpdir(), 'dv-reproduce-config-'));

describe('reproduce config', () => {
  it('mini: 3 seeds, one backbone, the trainer presets; --quick: 1 seed and smaller sizes', () => {
    const full = resolveReproduceConfig({ profile: 'mini' });
    expect(full.seeds).toEqual([13, 42, 1234]);
    expect(full.backbones).toEqual(['mini-bert']);
    expect(full.train.loss.temperature).toBe(0.02);
    const quick = resolveReproduceConfig({ profile: 'mini', quick: true });
    expect(quick.seeds).toHaveLength(1);
    expect(quick.world.testLemmas).toBeLessThan(full.world.testLemmas);
    expect(quick.mixes.budget).toBeLessThan(full.mixes.budget);
  });
  it('--seeds N, --backbones all and --config FILE (deep merge) apply in that order', () => {
    const path = join(dir, 'c.json');
    writeFileSync(path, JSON.stringify({ mixes: { budget: 1000 }, world: { candidates: 12 }, seeds: [1] }));
    const c = resolveReproduceConfig({ profile: 'mini', configFile: path, seeds: 5, backbones: 'all' });
    expect(c.mixes.budget).toBe(1000);
    expect(c.mixes.seed).toBe(REPRODUCE_PROFILES.mini.mixes.seed);
    expect(c.world.candidates).toBe(12);
    expect(c.world.testLemmas).toBe(REPRODUCE_PROFILES.mini.world.testLemmas);
    expect(c.seeds).toEqual([13, 42, 1234, 7919 * 4, 7919 * 5]);
    expect(c.backbones).toEqual(['mini-bert', 'mini-gte']);
  });
  it('bad config files are errors naming the file and the field', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ mixes: { budget: -3 } }));
    expect(() => resolveReproduceConfig({ profile: 'mini', configFile: bad })).toThrow(
      /bad\.json: invalid reproduce config: mixes\.budget/,
    );
    const notJson = join(dir, 'x.json');
    writeFileSync(notJson, '{ nope');
    expect(() => resolveReproduceConfig({ profile: 'mini', configFile: notJson })).toThrow(
      /x\.json: not valid JSON/,
    );
    expect(() => resolveReproduceConfig({ profile: 'mini', configFile: join(dir, 'absent.json') })).toThrow(
      /config file not found/,
    );
  });
  it('a misspelt key is an error naming it, the file:line and the closest known key (issue 25)', () => {
    const path = join(dir, 'typo.json');
    writeFileSync(path, '{\n  "train": {\n    "optimizer": { "lrr": 0.001 }\n  },\n  "seedz": [1]\n}\n');
    expect(() => resolveReproduceConfig({ profile: 'mini', configFile: path })).toThrow(
      `unknown key 'train.optimizer.lrr' in ${path}:3: did you mean 'lr'?; unknown key 'seedz' in ${path}:5: did you mean 'seeds'?`,
    );
  });
  it('the profiles carry no key the schema would drop', () => {
    for (const name of Object.keys(runOverlays) as Array<keyof typeof runOverlays>)
      expect(unknownConfigKeys(RunConfig, runOverlayInput(name))).toEqual([]);
  });
  it('configDifferences names the changed leaves (arrays whole)', () => {
    const a = resolveReproduceConfig({ profile: 'mini', quick: true });
    expect(configDifferences(a, a)).toEqual([]);
    const b = { ...a, seeds: [1], world: { ...a.world, testLemmas: 7 } };
    expect(configDifferences(a, b)).toEqual(['seeds', 'world.testLemmas']);
    expect(configDifferences({ x: 1 }, { y: 1 })).toEqual(['x', 'y']);
  });
  it('mergeConfig merges objects and replaces arrays and scalars', () => {
    expect(mergeConfig({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: 2 })).toEqual({
      a: { b: 1, c: [3] },
      d: 2,
    });
  });
});

describe("the report's command line (reproduceCommandOf)", () => {
  // a run with --world-seed 7 was reported as plain `pnpm reproduce`: a reader rerunning it got
  // another world
  it('names every flag that made the config, and resolving those flags gives the config back', () => {
    const cases: [Parameters<typeof resolveReproduceConfig>[0], string][] = [
      [{ profile: 'mini' }, 'pnpm reproduce'],
      [{ profile: 'mini', quick: true }, 'pnpm reproduce --quick'],
      [{ profile: 'mini', worldSeed: 7 }, 'pnpm reproduce --world-seed 7'],
      [{ profile: 'mini', seeds: [7, 99, 2024] }, 'pnpm reproduce --seeds 7,99,2024'],
      [
        { profile: 'mini', seeds: 5, backbones: 'all' },
        'pnpm reproduce --seeds 13,42,1234,31676,39595 --backbones all',
      ],
      [{ profile: 'mini', quick: true, worldSeed: 3 }, 'pnpm reproduce --quick --world-seed 3'],
      [{ profile: 'paper' }, 'pnpm reproduce --profile paper'],
    ];
    for (const [o, want] of cases) {
      const config = resolveReproduceConfig(o);
      expect(reproduceCommandOf(config), JSON.stringify(o)).toBe(want);
    }
  });

  it('what no flag sets is named as a config file change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-command-of-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ pretrain: { perSeed: false, steps: 2000 } }));
    const config = resolveReproduceConfig({ profile: 'mini', worldSeed: 7, configFile: file });
    expect(reproduceCommandOf(config)).toBe(
      'pnpm reproduce --world-seed 7 --config FILE (setting pretrain.perSeed, pretrain.steps)',
    );
  });
});

describe('resolved defaults (issue 23: one config tree, same values)', () => {
  // Written from the resolver when the reproduce config moved into @dv/core's RunConfig, and
  // checked equal (slice renames mapped) to what the earlier ReproduceConfig resolved to; the
  // quick run's results were byte-identical. A change here changes what `pnpm reproduce` runs.
  const golden = (name: string) =>
    JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `resolved-${name}.json`), 'utf8'));
  it('pnpm reproduce and --quick resolve to the recorded values', () => {
    expect(resolveReproduceConfig({ profile: 'mini' })).toEqual(golden('mini'));
    expect(resolveReproduceConfig({ profile: 'mini', quick: true })).toEqual(golden('quick'));
  });
});
