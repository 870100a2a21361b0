import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { createMiniEncoder, miniBackboneConfig } from './mini-backbones.js';
import { TransformerEncoder, toForwardInputs } from './transformer-encoder.js';

const batch = {
  inputIds: [
    [2, 10, 11, 12, 3],
    [2, 13, 3, 0, 0],
  ],
  attentionMask: [
    [1, 1, 1, 1, 1],
    [1, 1, 1, 0, 0],
  ],
};

describe('mini backbones', async () => {
  await initBackend();
  for (const name of ['mini-bert', 'mini-gte'] as const) {
    it(`${name}: deterministic init, right shapes, padding does not leak into mean pooling`, () => {
      const a = createMiniEncoder(name, { vocabSize: 50, seed: 7 });
      const b = createMiniEncoder(name, { vocabSize: 50, seed: 7 });
      const c = createMiniEncoder(name, { vocabSize: 50, seed: 8 });
      const w = a.params.get('embeddings.word_embeddings.weight')!;
      expect(w.shape).toEqual([50, 128]);
      expect(w.dataSync()).toEqual(b.params.get('embeddings.word_embeddings.weight')!.dataSync());
      expect(w.dataSync()).not.toEqual(c.params.get('embeddings.word_embeddings.weight')!.dataSync());
      const std = Math.sqrt(tf.moments(w).variance.dataSync()[0]!);
      expect(std).toBeGreaterThan(0.018);
      expect(std).toBeLessThan(0.022);
      tf.tidy(() => {
        const inputs = toForwardInputs(batch);
        expect(a.forward(inputs).shape).toEqual([2, 5, 128]);
        const e = a.embed(inputs, 'mean', true);
        expect(e.shape).toEqual([2, 128]);
        expect(tf.norm(e, 'euclidean', 1).dataSync()[0]).toBeCloseTo(1, 5);
        // Row 2 alone, without padding, pools to the same vector.
        const alone = a.embed(
          toForwardInputs({ inputIds: [[2, 13, 3]], attentionMask: [[1, 1, 1]] }),
          'mean',
          true,
        );
        const diff = tf.max(tf.abs(tf.sub(e.slice([1, 0], [1, 128]), alone))).dataSync()[0]!;
        expect(diff).toBeLessThan(1e-5);
      });
      for (const x of [a, b, c]) x.dispose();
    });
  }

  it('overrides give config B (4 layers, hidden 256) and weights round-trip through fromWeights', () => {
    const cfg = { num_hidden_layers: 4, hidden_size: 256, num_attention_heads: 4, intermediate_size: 1024 };
    const enc = createMiniEncoder('mini-bert', { vocabSize: 30, seed: 1, overrides: cfg });
    expect(enc.params.has('encoder.layer.3.output.dense.weight')).toBe(true);
    const again = TransformerEncoder.fromWeights(
      miniBackboneConfig('mini-bert', { vocabSize: 30, overrides: cfg }),
      enc.toWeights(),
    );
    const inputs = toForwardInputs(batch);
    expect(again.forward(inputs).dataSync()).toEqual(enc.forward(inputs).dataSync());
    // The unused BERT pooler is kept (exported) but not trained.
    expect(enc.trainableNames()).not.toContain('pooler.dense.weight');
    expect(enc.trainableNames()).toContain('encoder.layer.3.output.dense.weight');
    expect(enc.trainableVariables()).toHaveLength(enc.trainableNames().length);
    enc.dispose();
    again.dispose();
  });

  it('a missing or misshapen weight is a DataError naming it', () => {
    const enc = createMiniEncoder('mini-gte', { vocabSize: 30, seed: 1 });
    const w = enc.toWeights();
    w.delete('encoder.layer.1.mlp.up_gate_proj.weight');
    const config = miniBackboneConfig('mini-gte', { vocabSize: 30 });
    expect(() => TransformerEncoder.fromWeights(config, w, 'x.safetensors')).toThrow(
      /x\.safetensors.*missing weight "encoder\.layer\.1\.mlp\.up_gate_proj\.weight"/,
    );
    w.set('encoder.layer.1.mlp.up_gate_proj.weight', { shape: [3, 3], data: new Float32Array(9) });
    expect(() => TransformerEncoder.fromWeights(config, w)).toThrow(/expected shape \[688,128\]/);
    enc.dispose();
  });
});
