import { SeedExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { reverseOffline } from '../backends/offline-reverser.js';
import { metadataSeeds, plainSeeds } from '../test-utils/seed-fixtures.js';
import { complementFigures } from './complement-figures.js';

describe('complementFigures', () => {
  it('counts complements, levers, skeletons, masked distinctness and cues of both views', async () => {
    const seeds = [...metadataSeeds(9), ...plainSeeds(3)].map((s) => SeedExample.parse(s));
    seeds[0] = { ...seeds[0]!, split: 'dev' };
    const f = await complementFigures(seeds);
    const pairs = seeds
      .map((s) => ({
        q: s.query,
        w: reverseOffline({
          seedId: s.id,
          query: s.query,
          instruction: s.instruction,
          positive: s.positives[0]!,
          target: s.instructionNegatives[0]!,
          otherNegatives: s.instructionNegatives.slice(1),
        }),
      }))
      .filter((p) => p.w !== null);
    const written = pairs.map((p) => p.w!);
    expect(f.seeds).toBe(12);
    expect(f.complements).toBe(written.length);
    expect(f.devSeeds).toBe(1);
    const levers: Record<string, number> = {};
    for (const w of written) levers[w.lever] = (levers[w.lever] ?? 0) + 1;
    expect(Object.keys(f.leverShares).sort()).toEqual(Object.keys(levers).sort());
    const sum = Object.values(f.leverShares).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 2);
    const masked = new Set(pairs.map((p) => p.w!.text.split(`"${p.q}"`).join('Q').split(p.q).join('Q')));
    expect(f.maskedDistinctShare).toBe(Math.round((masked.size / written.length) * 1000) / 1000);
    expect(f.minParaphrasesPerFrame).toBeGreaterThanOrEqual(5);
    // the fixtures' originals never quote the query and are all first-person ("I am only ...")
    expect(f.cues.original.quoted).toBe(0);
    expect(f.cues.complement.quoted).toBe(
      Math.round((written.filter((w) => w.quoted).length / written.length) * 1000) / 1000,
    );
    expect(f.textJudgePassShare).toBeGreaterThan(0.5);
  });
});
