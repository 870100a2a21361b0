import { describe, expect, it } from 'vitest';
import { presets, RunConfig } from './index.js';
import {
  miniPreset,
  paperPreset,
  type RunOverlayName,
  resolveRunOverlay,
  runOverlaySources,
  runOverlays,
} from './presets.js';

/**
 * The value at a source's dotted path; `[i]` indexes an array, `[name]` picks the item of that
 * name (`paper.datasets[promptriever]`), `[]` the first item (a note on every item).
 */
function valueAt(config: unknown, path: string): unknown {
  let v: unknown = config;
  for (const part of path.split('.')) {
    const m = /^([^[]+)(?:\[([^\]]*)\])?$/.exec(part)!;
    v = (v as Record<string, unknown>)?.[m[1]!];
    if (m[2] === undefined) continue;
    const items = v as Array<Record<string, unknown>> | undefined;
    v =
      m[2] === ''
        ? items?.[0]
        : /^\d+$/.test(m[2])
          ? items?.[Number(m[2])]
          : items?.find((x) => x.name === m[2]);
    // a note on a field the item may leave out (a revision to pin) names the item only
    if (v !== undefined && typeof v === 'object')
      v = { ...(v as object), revision: (v as { revision?: unknown }).revision ?? null };
  }
  return v;
}

describe('presets', () => {
  it('paper preset carries the seed values', () => {
    const c = paperPreset.config;
    expect(c.train.loss.temperature).toBe(0.02);
    expect(c.train.batch.hardNegatives).toBe(30);
    expect(c.train.model.maxQueryLength).toBe(512);
    expect(c.mixes.budget).toBe(480_000);
    expect(c.synthesis.model).toBe('Qwen/Qwen3-Next-80B-A3B-Instruct');
  });

  it('every preset validates and every source names a real config path', () => {
    for (const p of Object.values(presets)) {
      expect(RunConfig.safeParse(p.config).success).toBe(true);
      for (const path of Object.keys(p.sources))
        expect(valueAt(p.config, path), `${p.name}: ${path}`).not.toBeUndefined();
    }
  });

  it('every overlay resolves, and every source of an overlay names a path it sets or inherits', () => {
    for (const name of Object.keys(runOverlays) as RunOverlayName[]) {
      const c = resolveRunOverlay(name);
      for (const path of Object.keys(runOverlaySources(name)))
        expect(valueAt(c, path), `${name}: ${path}`).not.toBeUndefined();
    }
    expect(resolveRunOverlay('quick').seeds).toEqual([13]);
    expect(resolveRunOverlay('paper').profile).toBe('paper');
  });

  it('mini preset uses the offline reverser and no endpoints', () => {
    expect(miniPreset.config.synthesis.backend).toBe('offline');
    expect(miniPreset.config.synthesis.baseURLs).toEqual([]);
    expect(miniPreset.config.train.loss.temperature).toBe(paperPreset.config.train.loss.temperature);
  });
});
