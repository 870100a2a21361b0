// ONNX external data with a lowered threshold: the graph in model.onnx, initializers of 1 KiB or
// more in model.onnx_data at 4 KiB-aligned offsets. onnxruntime loads it from the path and gives
// the inline export's outputs; Python's onnx.checker (with external data) accepts it when a
// Python with `onnx` is found (.venv-ref, DV_PYTHON), and Python's onnxruntime runs it where
// installed; else that part skips with a message.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { findPython, pythonTimeout, runPython } from '../test-utils/python.js';
import { miniConfigs, randomEncoderWeights } from '../test-utils/random-encoder.js';
import { exportOnnx, type OnnxExportInput } from './export-onnx.js';

const raw = miniConfigs().bert;
const input: OnnxExportInput = {
  config: raw,
  weights: randomEncoderWeights(parseEncoderConfig(raw)),
  pooling: 'mean',
  normalize: true,
};

function feeds(names: readonly string[]): Record<string, ort.Tensor> {
  const ids = BigInt64Array.from([2n, 7n, 9n, 3n, 0n, 2n, 5n, 3n, 0n, 0n]);
  const mask = BigInt64Array.from([1n, 1n, 1n, 1n, 0n, 1n, 1n, 1n, 0n, 0n]);
  const f: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', ids, [2, 5]),
    attention_mask: new ort.Tensor('int64', mask, [2, 5]),
  };
  if (names.includes('token_type_ids'))
    f.token_type_ids = new ort.Tensor('int64', new BigInt64Array(10), [2, 5]);
  return f;
}

const python = findPython(['onnx']);

describe('ONNX external data (models over 2 GiB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-onnx-ext-'));
  const inline = join(dir, 'inline.onnx');
  const external = join(dir, 'model.onnx');

  it('below the threshold one file; at it the graph plus <name>_data, same outputs in onnxruntime', async () => {
    expect(exportOnnx(inline, input)).toEqual([inline]);
    const files = exportOnnx(external, input, { externalDataThreshold: 1 });
    expect(files).toEqual([external, join(dir, 'model.onnx_data')]);
    const graphBytes = statSync(external).size;
    const dataBytes = statSync(files[1]!).size;
    expect(graphBytes).toBeLessThan(statSync(inline).size / 4);
    expect(graphBytes + dataBytes).toBeGreaterThan(statSync(inline).size * 0.9);
    // The graph names its data file and no longer carries the big tensors.
    expect(readFileSync(external).includes(Buffer.from('model.onnx_data'))).toBe(true);

    const a = await ort.InferenceSession.create(inline);
    const b = await ort.InferenceSession.create(external);
    const ra = await a.run(feeds(a.inputNames));
    const rb = await b.run(feeds(b.inputNames));
    for (const name of ['last_hidden_state', 'sentence_embedding']) {
      expect(rb[name]!.dims).toEqual(ra[name]!.dims);
      expect(Array.from(rb[name]!.data as Float32Array)).toEqual(Array.from(ra[name]!.data as Float32Array));
    }
    await a.release();
    await b.release();
  });

  it.skipIf(!python)(
    'onnx.checker accepts it and onnx loads every external tensor',
    () => {
      exportOnnx(external, input, { externalDataThreshold: 0 });
      const script = `
import json, sys, onnx
from onnx import numpy_helper
path = json.load(sys.stdin)
onnx.checker.check_model(path, full_check=True)
import os
m = onnx.load(path, load_external_data=False)
ext = [t for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
offsets = [int({e.key: e.value for e in t.external_data}["offset"]) for t in ext]
out = {"external": len(ext), "aligned": all(o % 4096 == 0 for o in offsets), "sizes": sum(numpy_helper.to_array(t, base_dir=os.path.dirname(path)).nbytes for t in ext)}
try:
    import numpy as np, onnxruntime as rt
except ImportError:
    out["ort"] = None
else:
    s = rt.InferenceSession(path, providers=["CPUExecutionProvider"])
    feed = {"input_ids": np.array([[2, 7, 9, 3]], dtype=np.int64), "attention_mask": np.ones((1, 4), dtype=np.int64)}
    if "token_type_ids" in [i.name for i in s.get_inputs()]: feed["token_type_ids"] = np.zeros((1, 4), dtype=np.int64)
    e = s.run(["sentence_embedding"], feed)[0]
    out["ort"] = [list(e.shape), float(np.linalg.norm(e[0]))]
print(json.dumps(out))
`;
      const r = runPython(python!, script, external) as {
        external: number;
        aligned: boolean;
        sizes: number;
        ort: [number[], number] | null;
      };
      if (r.ort === null)
        console.warn('Python onnxruntime not installed: ran the file in onnxruntime-node only');
      else {
        expect(r.ort[0]).toEqual([1, 32]);
        expect(r.ort[1]).toBeCloseTo(1, 5); // normalize: true
      }
      expect(r.external).toBeGreaterThan(5);
      expect(r.aligned).toBe(true);
      expect(r.sizes).toBeGreaterThan(0);
    },
    pythonTimeout,
  );
});
