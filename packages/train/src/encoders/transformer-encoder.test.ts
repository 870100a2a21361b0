import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { fixtureDir, goldenFixtures, runGolden } from '../test-utils/golden.js';

// Golden tests on the default backend (native TensorFlow where the set-up built it; CI
// requires it, see backend/init-backend.test.ts): outputs within 1e-5, gradients of
// mean((h[:,0] - target)^2) within 1e-4 relative (max |diff| / max |ref| per parameter; the
// analytically zero key-bias gradients within 1e-6 absolute).
describe('TransformerEncoder against Hugging Face references', async () => {
  const backend = await initBackend();
  for (const name of goldenFixtures) {
    const dir = fixtureDir(name);
    if (!dir) console.warn(`skipping ${name}: ../shared/data-external/models/${name} is absent`);
    it.skipIf(!dir)(`${name} on ${backend.choice}`, () => {
      const r = runGolden(dir!);
      expect(Object.keys(r.outputs).length).toBeGreaterThanOrEqual(2);
      for (const [k, d] of Object.entries(r.outputs)) expect(d, k).toBeLessThanOrEqual(1e-5);
      expect(Object.keys(r.gradients).length).toBeGreaterThan(10);
      for (const [k, d] of Object.entries(r.gradients)) expect(d, k).toBeLessThanOrEqual(1e-4);
      for (const [k, d] of Object.entries(r.zeroGradients)) expect(d, k).toBeLessThanOrEqual(1e-6);
      expect(r.lossDiff).toBeLessThanOrEqual(1e-5);
      console.log(
        `${name} (${backend.choice}): max output diff ${Math.max(...Object.values(r.outputs)).toExponential(2)}, ` +
          `max relative gradient diff ${Math.max(...Object.values(r.gradients)).toExponential(2)}`,
      );
    });
  }
});
