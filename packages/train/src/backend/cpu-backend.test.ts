import { describe, expect, it } from 'vitest';
import { initBackend } from './init-backend.js';
import { tf } from './tf.js';

// Each test file runs in its own process, so this one can pin the pure-JS fallback.
describe('initBackend on the pure cpu backend', () => {
  it('an explicit choice is honoured and reported as such', async () => {
    const info = await initBackend({ backend: 'cpu' });
    expect(info).toMatchObject({ choice: 'cpu', tfjsBackend: 'cpu', reason: 'requested by the caller' });
    expect(info.tensorflowVersion).toBeUndefined();
    expect(tf.getBackend()).toBe('cpu');
  });
});
