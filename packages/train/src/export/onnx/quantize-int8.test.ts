// The int8 export: the quantizer's arithmetic by hand, and, against ONNX Runtime's own
// quantizer (`quantize_dynamic`, per-channel QInt8 weights, from the reference venv), the same
// int8 weights and scales byte for byte and outputs within quantization noise of float32.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { findPython, pythonTimeout, runPython } from '../test-utils/python.js';
import { miniConfigs, randomEncoderWeights } from '../test-utils/random-encoder.js';
import { exportOnnx } from './export-onnx.js';
import { quantizeInt8PerColumn } from './quantize-int8.js';

/**
 * ONNX Runtime's int8 products on a CPU without VNNI (AVX2 only) add pairs of u8 x s8 products
 * with vpmaddubsw, which saturates at int16, so int8 outputs sit further from float32 there
 * (measured on an AVX2-only AMD EPYC: min cosine 0.966 against 0.9997 with AVX-512 VNNI).
 */
const INT8_VNNI = (() => {
  try {
    return /\b(avx512_vnni|avx_vnni)\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return true;
  }
})();

describe('quantizeInt8PerColumn', () => {
  it('scales each column by its largest magnitude over 127 and rounds halves to even', () => {
    // Column 0: absmax 2.54 -> scale 0.02; 0.01 is exactly half a step (0.5 -> 0, even),
    // 0.03 is 1.5 steps (-> 2, even); column 1 all zero -> scale 1; column 2 absmax 127.
    const w = new Float32Array([2.54, 0, -127, 0.01, 0, 63.5, -0.03, 0, 1.5]);
    const q = quantizeInt8PerColumn(w, 3, 3);
    expect(q.scale[0]).toBe(Math.fround((2 * Math.fround(2.54)) / 254));
    expect(q.scale[1]).toBe(1);
    expect(q.scale[2]).toBe(1);
    expect([...q.data]).toEqual([127, 0, -127, 0, 0, 64, -2, 0, 2]);
  });

  it('keeps every value within half a step of the original', () => {
    const w = new Float32Array(64 * 8).map((_, i) => Math.sin(i * 1.7) * (1 + (i % 8)));
    const q = quantizeInt8PerColumn(w, 64, 8);
    for (let i = 0; i < w.length; i++) {
      const s = q.scale[i % 8]!;
      expect(Math.abs(q.data[i]! * s - w[i]!)).toBeLessThanOrEqual(s / 2 + 1e-7);
    }
  });
});

const python = findPython(['onnx', 'onnxruntime', 'numpy']);

// For each pair (ours int8, our float32 graph): quantize the float32 graph with ONNX Runtime's
// quantizer, compare the int8 initializers by name, and run the three graphs on one padded batch.
const script = `
import json, sys, numpy as np, onnx, onnxruntime as ort
from onnx import numpy_helper
from onnxruntime.quantization import quantize_dynamic, QuantType
out = {}
for case in json.load(sys.stdin):
    ref = case["fp32"] + ".ort-int8.onnx"
    quantize_dynamic(case["fp32"], ref, weight_type=QuantType.QInt8, per_channel=True, extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    ours = {i.name: numpy_helper.to_array(i) for i in onnx.load(case["int8"]).graph.initializer}
    theirs = {i.name: numpy_helper.to_array(i) for i in onnx.load(ref).graph.initializer}
    q = [k for k, v in ours.items() if v.dtype == np.int8 and k.endswith("_quantized")]
    same = [k for k in q if k in theirs and np.array_equal(ours[k], theirs[k])
            and np.array_equal(ours[k[:-len("_quantized")] + "_scale"], theirs[k[:-len("_quantized")] + "_scale"])]
    rng = np.random.default_rng(0)
    ids = rng.integers(3, case["vocab"], size=(3, 9)).astype(np.int64)
    mask = np.ones((3, 9), np.int64); mask[1, 6:] = 0; mask[2, 3:] = 0
    def run(p):
        s = ort.InferenceSession(p, providers=["CPUExecutionProvider"])
        feed = {i.name: ids if i.name == "input_ids" else mask if i.name == "attention_mask" else np.zeros_like(ids) for i in s.get_inputs()}
        return s.run(["sentence_embedding"], feed)[0]
    f, o, t = run(case["fp32"]), run(case["int8"]), run(ref)
    cos = (f * o).sum(1) / np.linalg.norm(f, axis=1) / np.linalg.norm(o, axis=1)
    out[case["name"]] = {"quantized": len(q), "same": len(same), "minCosFp32": float(cos.min()),
                         "maxDiffOrt": float(np.abs(o - t).max()), "maxDiffFp32": float(np.abs(o - f).max())}
print(json.dumps(out))
`;

describe('int8 export against ONNX Runtime quantize_dynamic', () => {
  it.skipIf(!python)(
    'quantizes every Linear as ORT does (same int8 bytes and scales) and stays within int8 noise of float32',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'dv-onnx-int8-'));
      const cases = Object.entries(miniConfigs()).map(([name, raw]) => {
        const config = parseEncoderConfig(raw);
        const weights = randomEncoderWeights(config);
        const base = { config: raw, weights, pooling: 'mean' as const, normalize: true };
        const fp32 = join(dir, `${name}.onnx`);
        const int8 = join(dir, `${name}-int8.onnx`);
        exportOnnx(fp32, base);
        exportOnnx(int8, { ...base, precision: 'int8' });
        // Linears: 4 per layer (attention projections packed as one, output, FFN in and out), + the pooler.
        const pooler = weights.has('pooler.dense.weight') ? 1 : 0;
        return {
          name,
          fp32,
          int8,
          vocab: config.vocab_size,
          expected: config.num_hidden_layers * 4 + pooler,
        };
      });
      const report = runPython(python!, script, cases) as Record<
        string,
        { quantized: number; same: number; minCosFp32: number; maxDiffOrt: number; maxDiffFp32: number }
      >;
      for (const c of cases) {
        const r = report[c.name]!;
        expect(r.quantized, c.name).toBe(c.expected);
        expect(r.same, c.name).toBe(r.quantized);
        expect(r.minCosFp32, c.name).toBeGreaterThan(INT8_VNNI ? 0.999 : 0.95);
        expect(r.maxDiffOrt, c.name).toBeLessThan(0.02);
      }
    },
    pythonTimeout,
  );
});
