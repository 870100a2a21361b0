import { createRanker, modelFactories } from '@dv/eval';
import { describe, expect, it } from 'vitest';
import { tfjsModelFactory } from './tfjs-model.js';
// loading `dv eval` registers tfjs:DIR (an explicit call in its module body)
import './command-tree/eval.js';

describe('tfjs:DIR in the CLI', () => {
  it('is registered with @dv/eval by the CLI, and bad specs say what is wrong', async () => {
    expect(modelFactories.tfjs).toBe(tfjsModelFactory);
    expect(Object.values(modelFactories).map((f) => f.usage)).toContain('tfjs:DIR');
    await expect(createRanker('tfjs:')).rejects.toThrow(/tfjs needs a model folder/);
    await expect(createRanker('tfjs:/no/such/folder')).rejects.toThrow(
      /\/no\/such\/folder: model folder not found/,
    );
  });
});
