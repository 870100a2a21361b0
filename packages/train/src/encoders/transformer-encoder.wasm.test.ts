import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { fixtureDir, runGolden } from '../test-utils/golden.js';

// wasm is the fallback before pure JS. It has no gather gradient, so embeddings are looked up
// by one-hot matmul there (internal/tf-layers.ts); the golden check guards that path.
// (Each test file runs in its own process, so pinning the backend here affects nothing else.)
const name = 'tiny-gte-multilingual-newmodel';
const dir = fixtureDir(name);
if (!dir) console.warn(`skipping the wasm golden test: ../shared/data-external/models/${name} is absent`);

describe('TransformerEncoder on the wasm backend', () => {
  it.skipIf(!dir)(`${name}: outputs within 1e-5, gradients within 1e-4 relative`, async () => {
    expect((await initBackend({ backend: 'wasm' })).tfjsBackend).toBe('wasm');
    const r = runGolden(dir!);
    for (const [k, d] of Object.entries(r.outputs)) expect(d, k).toBeLessThanOrEqual(1e-5);
    for (const [k, d] of Object.entries(r.gradients)) expect(d, k).toBeLessThanOrEqual(1e-4);
    for (const [k, d] of Object.entries(r.zeroGradients)) expect(d, k).toBeLessThanOrEqual(1e-6);
    expect(Object.keys(r.gradients).length).toBeGreaterThan(10);
  });
});
