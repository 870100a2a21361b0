import { DataError, ModelArchitecture } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { buildOnnxModel } from '../export/onnx/export-onnx.js';
import { miniConfigs, randomEncoderWeights } from '../export/test-utils/random-encoder.js';
import { architectureOf, architectures, parseEncoderConfig } from './registry.js';

// The contract every architecture module must keep (encoder-architecture.ts): its registry key
// is its model_type, and its parameter list, tfjs forward pass and ONNX graph agree on the
// weights they read. A module whose forward or graph reads a name missing from `parameters`
// (or lists one nobody reads) fails here, before any golden test.
describe('architecture registry', async () => {
  await initBackend();
  const configs = miniConfigs(40);

  it('keys every module by its model_type, and parses a config of each type to it', () => {
    expect(Object.keys(architectures).sort()).toEqual(Object.keys(configs).sort());
    for (const [type, arch] of Object.entries(architectures)) {
      expect(arch.modelType).toBe(type);
      const config = parseEncoderConfig(configs[type as keyof typeof configs]);
      expect(architectureOf(config)).toBe(arch);
    }
  });

  it("has one module for each architecture a run config may name (RunConfig's model.architecture)", () => {
    expect([...ModelArchitecture.options].sort()).toEqual(Object.keys(architectures).sort());
  });

  it('refuses an unknown model_type with a DataError naming the file', () => {
    const bad = { ...configs.bert, model_type: 'gpt2' };
    expect(() => parseEncoderConfig(bad, 'models/x/config.json')).toThrow(DataError);
    expect(() => parseEncoderConfig(bad, 'models/x/config.json')).toThrow(/model_type/);
    try {
      parseEncoderConfig(bad, 'models/x/config.json');
    } catch (err) {
      expect((err as DataError).file).toBe('models/x/config.json');
    }
  });

  for (const [type, raw] of Object.entries(configs)) {
    it(`${type}: the tfjs forward reads every trainable parameter, the ONNX graph every required one`, () => {
      const config = parseEncoderConfig(raw);
      const arch = architectureOf(config);
      const specs = arch.parameters(config);
      const weights = randomEncoderWeights(config);
      expect([...weights.keys()]).toEqual(Object.keys(specs));

      const read = new Set<string>();
      tf.tidy(() => {
        const params = (name: string) => {
          const w = weights.get(name);
          if (!w) throw new Error(`forward read ${name}, which parameters() does not list`);
          read.add(name);
          return tf.tensor(w.data, [...w.shape]);
        };
        const ids = tf.tensor2d([[2, 5, 6, 3]], undefined, 'int32');
        const mask = tf.onesLike(ids);
        const h = arch.forward(config, params, { inputIds: ids, attentionMask: mask }, (x) => x, 'all');
        expect(h.shape).toEqual([1, 4, config.hidden_size]);
      });
      const trainable = Object.entries(specs).filter(([, s]) => s.trainable !== false);
      expect([...read].sort()).toEqual(trainable.map(([n]) => n).sort());

      // ONNX: the graph builds from exactly these weights; without any required one it fails
      // naming it; without an optional one (the pooler) it builds, without that output.
      const input = { config, pooling: 'cls', normalize: true } as const;
      expect(buildOnnxModel({ ...input, weights }).graph.outputs.length).toBeGreaterThanOrEqual(2);
      for (const [name, spec] of Object.entries(specs)) {
        const without = new Map(weights);
        without.delete(name);
        if (spec.trainable === false) {
          const outputs = buildOnnxModel({ ...input, weights: without }).graph.outputs.map((o) => o.name);
          expect(outputs).not.toContain('pooler_output');
        } else {
          expect(() => buildOnnxModel({ ...input, weights: without }), name).toThrow(
            `missing weight "${name}"`,
          );
        }
      }
    });
  }
});
