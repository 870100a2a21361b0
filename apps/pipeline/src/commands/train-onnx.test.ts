// `dv train onnx` on a real `dv train init` folder: the default graph uses ONNX Runtime's fused
// contrib operators; --standard-ops (issue 22) writes one that other runtimes can load (that it
// encodes as the fused graph does is tested in @dv/train, export-folder-onnx.test.ts).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dv, toyTrainingFixture } from './test-utils/dv-process.js';

describe('dv train onnx', () => {
  it('--standard-ops writes a graph without com.microsoft operators; int8 with it is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-train-onnx-'));
    const { init } = await toyTrainingFixture(dir);
    const file = join(init, 'onnx', 'model.onnx');
    const fused = await dv(['train', 'onnx', '--model', init, '--pooling', 'cls', '--force']);
    expect(fused.code, fused.stderr).toBe(0);
    // an ONNX file names each operator domain verbatim (nodes and opset imports)
    expect(readFileSync(file).includes('com.microsoft')).toBe(true);

    const std = await dv(['train', 'onnx', '--model', init, '--pooling', 'cls', '--standard-ops', '--force']);
    expect(std.code, std.stderr).toBe(0);
    expect(std.stdout).toContain('(fp32, standard operators, cls pooling');
    expect(readFileSync(file).includes('com.microsoft')).toBe(false);

    // int8 exists only with ONNX Runtime's quantized operators: refused before anything is written
    const int8 = await dv(['train', 'onnx', '--model', init, '--precision', 'int8', '--standard-ops']);
    expect(int8.code).toBe(2);
    expect(int8.stderr).toContain('--standard-ops writes a float32 graph');
    expect(existsSync(join(init, 'onnx', 'model_qint8.onnx'))).toBe(false);
  }, 120_000);
});
