/**
 * Regression test for issue 12 item 11: every Hugging Face folder with `onnx/model.onnx` was
 * named `onnx:onnx/model.onnx` in summaries and run tags, so two models' results collided.
 */
import { describe, expect, it } from 'vitest';
import { onnxModelName } from './onnx-encoder.js';

describe('onnxModelName', () => {
  const a = 'a'.repeat(64);
  const b = `b${'0'.repeat(63)}`;
  it('names the model folder (the parent of onnx/), not the file', () => {
    expect(onnxModelName('/m/runs/gte-dv/onnx/model.onnx', a)).toBe('onnx:gte-dv@aaaaaaaa');
    expect(onnxModelName('/m/runs/arctic/model.onnx', a)).toBe('onnx:arctic@aaaaaaaa');
  });
  it('two HF exports, or two folders with one name, get different names', () => {
    const names = new Set([
      onnxModelName('/m/x/onnx/model.onnx', a),
      onnxModelName('/m/y/onnx/model.onnx', a),
      onnxModelName('/n/x/onnx/model.onnx', b),
    ]);
    expect(names.size).toBe(3);
  });
});
