import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertKnownConfigKeys, closestKey, levenshtein, unknownConfigKeys } from './config-keys.js';
import { miniTrainerPreset } from './presets.js';
import { TrainerConfig } from './schemas/trainer-config.js';

describe('closestKey', () => {
  it('suggests a near key and nothing for an unrelated one', () => {
    expect(levenshtein('learningRat', 'learningRate')).toBe(1);
    expect(closestKey('learningRat', ['lr', 'learningRate', 'seed'])).toBe('learningRate');
    expect(closestKey('temprature', ['temperature', 'name'])).toBe('temperature');
    expect(closestKey('BatchSize', ['batchSize', 'steps'])).toBe('batchSize');
    expect(closestKey('xyz', ['temperature', 'name'])).toBeUndefined();
    expect(closestKey('a', [])).toBeUndefined();
  });
});

describe('unknownConfigKeys', () => {
  const schema = z.object({
    optimizer: z.object({ lr: z.number(), weightDecay: z.number().default(0) }).optional(),
    list: z.array(z.object({ name: z.string() })).default([]),
    extra: z.looseObject({ a: z.number() }).optional(),
    tags: z.record(z.string(), z.object({ w: z.number() })).optional(),
    source: z
      .union([
        z.string().transform((name) => ({ name })),
        z.object({ name: z.string(), revision: z.string() }),
      ])
      .optional(),
    checked: z
      .object({ n: z.number() })
      .refine((x) => x.n > 0)
      .optional(),
  });

  it('finds misspelt keys at every depth, with the path and a suggestion', () => {
    const found = unknownConfigKeys(schema, {
      optimizer: { lr: 1, weightDecy: 0.1 },
      list: [{ name: 'a' }, { nmae: 'b' }],
      tags: { x: { w: 1, ww: 2 } },
      checked: { n: 1, m: 2 },
      topLevel: 1,
    });
    expect(found.map((u) => [u.path, u.suggestion])).toEqual([
      ['optimizer.weightDecy', 'weightDecay'],
      ['list[1].nmae', 'name'],
      ['tags.x.ww', 'w'],
      ['checked.m', 'n'],
      ['topLevel', undefined],
    ]);
  });

  it('accepts loose objects, union options that fit, and valid configs', () => {
    expect(unknownConfigKeys(schema, { extra: { a: 1, anything: 2 }, source: 'org/x' })).toEqual([]);
    expect(unknownConfigKeys(schema, { source: { name: 'a', revision: 'b' } })).toEqual([]);
    expect(unknownConfigKeys(schema, { source: { name: 'a', revison: 'b' } })[0]?.suggestion).toBe(
      'revision',
    );
    // the shipped preset is a valid TrainerConfig with no stray keys
    expect(unknownConfigKeys(TrainerConfig, miniTrainerPreset.config)).toEqual([]);
  });

  it('throws a DataError naming the key, the file:line and the closest key', () => {
    const text = '{\n  "optimizer": {\n    "lrr": 0.001\n  }\n}\n';
    expect(() => assertKnownConfigKeys(TrainerConfig, JSON.parse(text), 'cfg.json', text)).toThrow(
      "unknown key 'optimizer.lrr' in cfg.json:3: did you mean 'lr'?",
    );
    expect(() => assertKnownConfigKeys(TrainerConfig, { zzzz: 1 }, 'cfg.json')).toThrow(
      /unknown key 'zzzz' in cfg\.json: known keys here: .*optimizer/,
    );
  });
});
