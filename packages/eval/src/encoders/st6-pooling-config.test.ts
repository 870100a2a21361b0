// Regression: sentence-transformers 6 writes 1_Pooling/config.json as {"pooling_mode": "cls"}
// instead of the per-mode flags of versions <= 5 (pooling_mode_cls_token: true, ...). A folder
// trained by `dv train export --engine sentence-transformers` failed to load in the tfjs
// encoder ("only cls and mean pooling are supported") until both encoders read the new key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { miniModelFolder } from '../test-utils/mini-model.js';
import { OnnxEncoder } from './onnx-encoder.js';
import { TfjsEncoder } from './tfjs-encoder.js';

describe('1_Pooling/config.json as sentence-transformers 6 writes it', () => {
  it('both encoders take the pooling from "pooling_mode"', async () => {
    const m = await miniModelFolder('mini-bert', 'cls', { backend: 'cpu' });
    for (const mode of ['mean', 'cls'] as const) {
      writeFileSync(
        join(m.dir, '1_Pooling', 'config.json'),
        JSON.stringify({ embedding_dimension: 64, pooling_mode: mode, include_prompt: true }),
      );
      const onnx = await OnnxEncoder.fromDir(m.dir);
      expect(onnx.settings.pooling).toBe(mode);
      const tfjs = await TfjsEncoder.fromDir(m.dir);
      expect(tfjs.settings.pooling).toBe(mode);
      await tfjs.close?.();
    }
  }, 60_000);
});
