import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from '../reproduce-config.js';
import { buildMiniStages } from './build-stages.js';

function configWith(extra: object) {
  const file = join(mkdtempSync(join(tmpdir(), 'dv-stages-')), 'c.json');
  writeFileSync(file, JSON.stringify(extra));
  return resolveReproduceConfig({ profile: 'mini', quick: true, configFile: file });
}

describe('mini stage graph: pretrain.perSeed (issue 26, across machines)', () => {
  it('per seed is the mini default (and so the quick one)', () => {
    expect(resolveReproduceConfig({ profile: 'mini' }).pretrain.perSeed).toBe(true);
    expect(resolveReproduceConfig({ profile: 'mini', quick: true }).pretrain.perSeed).toBe(true);
  });

  it('shared (perSeed false): one pretrain stage per backbone, perSeed outside its slice', () => {
    const stages = buildMiniStages(configWith({ seeds: [13, 42], pretrain: { perSeed: false } }));
    const pre = stages.filter((s) => s.group === 'pretrain');
    expect(pre.map((s) => s.id)).toEqual(['pretrain/mini-bert']);
    expect(JSON.stringify(pre[0]!.config)).not.toContain('perSeed');
    const train = stages.find((s) => s.id === 'train/mini-bert/ins-dv/seed-42')!;
    expect(train.deps).toContain('pretrain/mini-bert');
    expect(stages.filter((s) => s.id.startsWith('eval/mini-bert/untrained')).map((s) => s.id)).toEqual([
      'eval/mini-bert/untrained',
    ]);
  });

  it('per seed: each fine-tuning seed starts from its own MLM seed, and each is a baseline', () => {
    const shared = buildMiniStages(configWith({ seeds: [13, 42], pretrain: { perSeed: false } }));
    const stages = buildMiniStages(configWith({ seeds: [13, 42] }));
    const pre = stages.filter((s) => s.group === 'pretrain');
    expect(pre.map((s) => s.id)).toEqual(['pretrain/mini-bert/seed-13', 'pretrain/mini-bert/seed-42']);
    const mlmSeed = (s: (typeof pre)[number]) => (s.config as { mlm: { seed: number } }).mlm.seed;
    expect(pre.map(mlmSeed)).toEqual([13, 42]);
    // the seed-13 backbone is the shared one (same slice, so the same key)
    expect(pre[0]!.config).toEqual(shared.find((s) => s.id === 'pretrain/mini-bert')!.config);
    for (const seed of [13, 42]) {
      const train = stages.find((s) => s.id === `train/mini-bert/ins-dv/seed-${seed}`)!;
      expect(train.deps).toContain(`pretrain/mini-bert/seed-${seed}`);
      expect(train.deps).not.toContain(`pretrain/mini-bert/seed-${seed === 13 ? 42 : 13}`);
    }
    const untrained = stages.filter((s) => s.id.startsWith('eval/mini-bert/untrained'));
    expect(untrained.map((s) => s.id)).toEqual([
      'eval/mini-bert/untrained/seed-13',
      'eval/mini-bert/untrained/seed-42',
    ]);
    expect(untrained[1]!.deps).toContain('pretrain/mini-bert/seed-42');
  });
});
