import { describe, expect, it } from 'vitest';
import { initBackend } from './init-backend.js';
import { tf } from './tf.js';

// CI runs on machines where the install-time set-up builds native TensorFlow; there it must be
// the backend in use. Elsewhere this reports what was chosen and why.
const mustBeNative = process.env.CI === 'true' || process.env.DV_REQUIRE_NATIVE_TF === '1';

describe('initBackend', () => {
  it('auto picks the fastest backend that loads and says why', async () => {
    const info = await initBackend();
    expect(info.tfjsBackend).toBe(tf.getBackend());
    expect(info.reason.length).toBeGreaterThan(0);
    if (mustBeNative || info.choice === 'tensorflow') {
      expect(info.choice, info.reason).toBe('tensorflow');
      expect(info.tensorflowVersion).toBe('2.21.0');
    } else {
      console.warn(`native TensorFlow not in use here: ${info.reason}`);
    }
    expect(tf.add(tf.tensor([1, 2]), tf.tensor([3, 4])).arraySync()).toEqual([4, 6]);
  });

  it('rejects unknown names and keeps the first answer for auto', async () => {
    await expect(initBackend({ backend: 'tpu' as never })).rejects.toThrow(/unknown tfjs backend 'tpu'/);
    const a = await initBackend();
    expect(await initBackend()).toBe(a);
  });
});
