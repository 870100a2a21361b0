import { TfjsEncoder, tf } from '@dv/train';
import { describe, expect, it } from 'vitest';
import { miniCorpus, miniModelFolder } from '../test-utils/mini-model.js';
import { OnnxEncoder } from './onnx-encoder.js';

// Each test file runs in its own process, so this one can pin tfjs's pure-JS backend without
// touching the native one the other encoder tests use.
describe('tfjs encoder on the pure cpu backend', () => {
  it('the backend option is honoured; embeddings within 1e-5 of onnxruntime', async () => {
    const { dir } = await miniModelFolder('mini-bert', 'mean', { backend: 'cpu' });
    const texts = [...miniCorpus.slice(0, 5), 'bass'];
    const tfjs = await TfjsEncoder.fromDir(dir, { backend: 'cpu', batchSize: 4 });
    expect(tfjs.backend.choice).toBe('cpu');
    expect(tf.getBackend()).toBe('cpu');
    const onnx = await OnnxEncoder.fromDir(dir);
    const got = await tfjs.encodeDocuments(texts);
    const want = await onnx.encodeDocuments(texts);
    const d = got.reduce((m, x, i) => Math.max(m, Math.abs(x - want[i]!)), 0);
    console.info(`mini-bert on tfjs backend 'cpu': max |tfjs - onnx| = ${d}`);
    expect(got.length).toBe(texts.length * tfjs.dim);
    expect(d).toBeLessThan(1e-5);
    await onnx.close();
    await tfjs.close();
  });
});
