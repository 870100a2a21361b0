// Structural validation of the exported ONNX with Python's `onnx.checker` (full check, with
// shape inference). Skipped with a message when no Python with `onnx` is found.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { findPython, pythonTimeout, runPython } from '../test-utils/python.js';
import { miniConfigs, randomEncoderWeights } from '../test-utils/random-encoder.js';
import { exportOnnx } from './export-onnx.js';

const python = findPython(['onnx']);

const script = `
import json, sys, onnx
out = {}
for path in json.load(sys.stdin):
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    dims = lambda vs: {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in vs}
    out[path] = {"opset": m.opset_import[0].version, "ir": m.ir_version, "inputs": dims(m.graph.input), "outputs": dims(m.graph.output)}
print(json.dumps(out))
`;

describe('onnx.checker', () => {
  it.skipIf(!python)(
    'accepts the export of each architecture, with dynamic batch and sequence axes',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'dv-onnx-check-'));
      const paths: Record<string, string> = {};
      // The default graph (ONNX Runtime contrib ops) and the standard-ops one.
      for (const fusedOps of [true, false])
        for (const [arch, raw] of Object.entries(miniConfigs())) {
          const path = join(dir, `${arch}-${fusedOps ? 'fused' : 'standard'}.onnx`);
          exportOnnx(path, {
            config: raw,
            weights: randomEncoderWeights(parseEncoderConfig(raw)),
            pooling: 'mean',
            normalize: true,
            fusedOps,
          });
          paths[`${arch} ${fusedOps}`] = path;
        }
      const report = runPython(python!, script, Object.values(paths)) as Record<
        string,
        { opset: number; ir: number; inputs: Record<string, unknown[]>; outputs: Record<string, unknown[]> }
      >;
      for (const [key, path] of Object.entries(paths)) {
        const arch = key.split(' ')[0];
        const r = report[path]!;
        expect(r.opset).toBeGreaterThanOrEqual(14);
        expect(r.inputs.input_ids).toEqual(['batch', 'sequence']);
        expect(r.inputs.attention_mask).toEqual(['batch', 'sequence']);
        expect('token_type_ids' in r.inputs).toBe(arch === 'bert');
        expect(r.outputs.last_hidden_state).toEqual(['batch', 'sequence', 32]);
        expect(r.outputs.sentence_embedding).toEqual(['batch', 32]);
      }
    },
    pythonTimeout,
  );
});
