import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { tinyModelDir } from '../test-utils/tiny-model-dir.js';
import {
  bf16ToFloat32,
  encodeSafetensors,
  f16ToFloat32,
  float32ToBf16,
  float32ToF16,
  parseSafetensors,
  readSafetensors,
  readSafetensorsHeader,
  tensorToFloat32,
  writeSafetensors,
} from './index.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'dv-st-'));

/** Builds a file from a raw header object and a data buffer, bypassing the writer's checks. */
function rawFile(header: unknown, data: Uint8Array, headerText = JSON.stringify(header)): Uint8Array {
  const h = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

function expectDataError(bytes: Uint8Array, pattern: RegExp): void {
  let error: unknown;
  try {
    parseSafetensors(bytes, 'bad.safetensors');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DataError);
  expect((error as Error).message).toMatch(/^bad\.safetensors: /);
  expect((error as Error).message).toMatch(pattern);
}

describe('safetensors round trip', () => {
  it('writes and reads back every dtype with shape, values and metadata', () => {
    const dir = tmp();
    const path = join(dir, 'a.safetensors');
    const tensors = {
      w: { dtype: 'F32', shape: [2, 3], data: new Float32Array([1, -2, 3.5, 0, 1e-8, -0]) },
      d: { dtype: 'F64', shape: [1], data: new Float64Array([Math.PI]) },
      ids: { dtype: 'I64', shape: [2, 2], data: new BigInt64Array([0n, -1n, 2n ** 40n, 7n]) },
      i: { dtype: 'I32', shape: [3], data: new Int32Array([1, -2, 3]) },
      b: { dtype: 'BOOL', shape: [3], data: new Uint8Array([1, 0, 1]) },
      h: { dtype: 'F16', shape: [2], data: float32ToF16(new Float32Array([1.5, -0.25])) },
      s: { dtype: 'F32', shape: [], data: new Float32Array([42]) },
      e: { dtype: 'F32', shape: [0, 4], data: new Float32Array(0) },
    } as const;
    writeSafetensors(path, tensors, { format: 'pt', note: 'x' });
    expect(readdirSync(dir)).toEqual(['a.safetensors']);
    const file = readSafetensors(path);
    expect(file.metadata).toEqual({ format: 'pt', note: 'x' });
    expect([...file.tensors.keys()].sort()).toEqual(Object.keys(tensors).sort());
    for (const [name, t] of Object.entries(tensors)) {
      const got = file.tensors.get(name)!;
      expect(got.dtype).toBe(t.dtype);
      expect(got.shape).toEqual(t.shape);
      expect(got.data.constructor).toBe(t.data.constructor);
      expect(Array.from(got.data as ArrayLike<number | bigint>)).toEqual(
        Array.from(t.data as ArrayLike<number | bigint>),
      );
    }
    expect(Array.from(tensorToFloat32(file.tensors.get('h')!))).toEqual([1.5, -0.25]);
    expect(tensorToFloat32(file.tensors.get('d')!)[0]).toBeCloseTo(Math.PI, 6);
    expect(() => tensorToFloat32(file.tensors.get('ids')!, 'ids')).toThrow(/tensor "ids": dtype I64/);
    const widened = readSafetensors(path, { halfToFloat32: true }).tensors.get('h')!;
    expect(widened.dtype).toBe('F32');
    expect(Array.from(widened.data as Float32Array)).toEqual([1.5, -0.25]);
    // Header padded to 8 so data is aligned.
    const bytes = readFileSync(path);
    expect(Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true)) % 8).toBe(0);
    expect(readSafetensorsHeader(path).tensors.get('ids')!.shape).toEqual([2, 2]);
  });

  it('rewriting replaces the file atomically and refuses a dtype/array mismatch', () => {
    const dir = tmp();
    const path = join(dir, 'a.safetensors');
    writeSafetensors(path, { x: { dtype: 'F32', shape: [1], data: new Float32Array([1]) } });
    expect(() =>
      writeSafetensors(path, { x: { dtype: 'F32', shape: [1], data: new Float64Array([2]) } }),
    ).toThrow(/needs a Float32Array/);
    expect(() =>
      writeSafetensors(path, { x: { dtype: 'F32', shape: [2], data: new Float32Array([2]) } }),
    ).toThrow(/needs 2 elements/);
    expect(readdirSync(dir)).toEqual(['a.safetensors']);
    expect(Array.from(readSafetensors(path).tensors.get('x')!.data as Float32Array)).toEqual([1]);
  });

  it('reads unaligned data by copying', () => {
    // Header of odd length (no padding): F32 data starts at an odd offset.
    const data = new Uint8Array(new Float32Array([1.25, -3]).buffer);
    const header = { t: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } };
    const bytes = rawFile(header, data, `${JSON.stringify(header)} `);
    expect(Array.from(parseSafetensors(bytes, 'x').tensors.get('t')!.data as Float32Array)).toEqual([
      1.25, -3,
    ]);
  });
});

describe('half floats', () => {
  it('F16 and BF16 convert exactly where representable and round to nearest even', () => {
    const v = new Float32Array([0, -0, 1, -2, 65504, 6.103515625e-5, 2 ** -24, 1 / 3, 1e6, Number.NaN]);
    const h = f16ToFloat32(float32ToF16(v));
    expect(Array.from(h.slice(0, 7))).toEqual(Array.from(v.slice(0, 7)));
    expect(h[7]).toBeCloseTo(1 / 3, 3);
    expect(h[8]).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(h[9]!)).toBe(true);
    expect(Array.from(float32ToF16(new Float32Array([1.00048828125])))).toEqual([0x3c00]); // tie -> even
    const b = bf16ToFloat32(float32ToBf16(new Float32Array([1, -2.5, 1 / 3, Number.NaN])));
    expect(Array.from(b.slice(0, 2))).toEqual([1, -2.5]);
    expect(Math.abs(b[2]! - 1 / 3)).toBeLessThan(2e-3);
    expect(Number.isNaN(b[3]!)).toBe(true);
  });
});

describe('malformed safetensors', () => {
  const good = () => {
    const data = new Uint8Array(12);
    return {
      header: {
        a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
        b: { dtype: 'I32', shape: [1], data_offsets: [8, 12] },
      } as Record<string, unknown>,
      data,
    };
  };

  it('accepts the well-formed baseline', () => {
    const { header, data } = good();
    expect(parseSafetensors(rawFile(header, data), 'ok').tensors.size).toBe(2);
  });

  it('file shorter than the 8-byte length', () => {
    expectDataError(new Uint8Array(5), /too short/);
  });

  it('header length past EOF', () => {
    const { header, data } = good();
    const bytes = rawFile(header, data);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(bytes.length), true);
    expectDataError(bytes, /header length \d+ runs past the end of the file/);
  });

  it('truncated file (data cut short)', () => {
    const { header, data } = good();
    const bytes = rawFile(header, data);
    expectDataError(bytes.subarray(0, bytes.length - 3), /tensor "b": data_offsets \[8, 12\] past the end/);
  });

  it('bad JSON', () => {
    expectDataError(rawFile(null, new Uint8Array(0), '{"a": {"dtype": '), /not valid UTF-8 JSON/);
    expectDataError(rawFile(null, new Uint8Array(0), '[1,2]'), /must be a JSON object/);
  });

  it('overlapping offsets', () => {
    const { header, data } = good();
    header.b = { dtype: 'I32', shape: [1], data_offsets: [4, 8] };
    expectDataError(
      rawFile(header, data.subarray(0, 8)),
      /tensor "b": data_offsets \[4, 8\] overlap tensor "a"/,
    );
  });

  it('gap between tensors, and bytes left over', () => {
    const { header } = good();
    header.b = { dtype: 'I32', shape: [1], data_offsets: [12, 16] };
    expectDataError(rawFile(header, new Uint8Array(16)), /tensor "b": .*gap after byte 8/);
    const g = good();
    expectDataError(rawFile(g.header, new Uint8Array(20)), /has 20 bytes but the tensors cover 12/);
  });

  it('wrong sizes: byte span does not match shape x dtype', () => {
    const { header, data } = good();
    header.a = { dtype: 'F32', shape: [3], data_offsets: [0, 8] };
    expectDataError(
      rawFile(header, data),
      /tensor "a": 8 bytes in data_offsets but shape \[3\] x F32 needs 12/,
    );
  });

  it('unknown dtype, bad shape, bad offsets, bad metadata', () => {
    let g = good();
    g.header.a = { dtype: 'F31', shape: [2], data_offsets: [0, 8] };
    expectDataError(rawFile(g.header, g.data), /tensor "a": unknown dtype "F31"/);
    g = good();
    g.header.a = { dtype: 'F32', shape: [-2], data_offsets: [0, 8] };
    expectDataError(rawFile(g.header, g.data), /tensor "a": shape must be/);
    g = good();
    g.header.a = { dtype: 'F32', shape: [2], data_offsets: [8, 0] };
    expectDataError(rawFile(g.header, g.data), /tensor "a": .*end before begin/);
    g = good();
    g.header.__metadata__ = { format: 1 };
    expectDataError(rawFile(g.header, g.data), /__metadata__ "format" must be a string/);
  });

  it('readSafetensors names the file path in the error', () => {
    const path = join(tmp(), 'broken.safetensors');
    writeFileSync(
      path,
      encodeSafetensors({ x: { dtype: 'F32', shape: [4], data: new Float32Array(4) } }).subarray(0, 30),
    );
    expect(() => readSafetensors(path)).toThrow(`${path}: `);
    expect(() => readSafetensorsHeader(path)).toThrow(DataError);
  });
});

describe('golden: Hugging Face safetensors files', () => {
  const dir = tinyModelDir('tiny-bert-uncased-wordpiece');
  it.skipIf(!dir)('reads the tiny BERT weights and reference outputs', () => {
    const model = readSafetensors(join(dir!, 'model.safetensors'));
    expect(model.metadata).toEqual({ format: 'pt' });
    expect(model.tensors.size).toBe(39);
    const emb = model.tensors.get('embeddings.word_embeddings.weight')!;
    expect(emb.dtype).toBe('F32');
    expect(emb.shape).toEqual([30522, 32]);
    expect(emb.data).toBeInstanceOf(Float32Array);
    expect(model.tensors.get('encoder.layer.1.intermediate.dense.weight')!.shape).toEqual([37, 32]);

    const expected = readSafetensors(join(dir!, 'expected.safetensors'));
    const ids = expected.tensors.get('input_ids')!;
    expect(ids.dtype).toBe('I64');
    expect(ids.data).toBeInstanceOf(BigInt64Array);
    // Cross-check against the JSON copy of the same reference data.
    const json = (
      JSON.parse(readFileSync(join(dir!, 'expected.json'), 'utf8')) as {
        tensors: Record<string, { shape: number[]; data: unknown }>;
      }
    ).tensors;
    expect(Array.from(ids.data as BigInt64Array, Number)).toEqual(
      (json.input_ids!.data as number[][]).flat(),
    );
    const h = expected.tensors.get('last_hidden_state_f32')!;
    expect(h.shape).toEqual(json.last_hidden_state_f32!.shape);
    const flat = (json.last_hidden_state_f32!.data as number[][][]).flat(2);
    const got = h.data as Float32Array;
    expect(got.length).toBe(flat.length);
    for (let i = 0; i < flat.length; i += 97) expect(got[i]).toBeCloseTo(flat[i]!, 6);
    const f64 = expected.tensors.get('last_hidden_state_f64')!;
    expect(f64.data).toBeInstanceOf(Float64Array);

    // Re-encoding the weights gives a file that reads back identically.
    const again = parseSafetensors(encodeSafetensors(model.tensors, model.metadata), 're-encoded');
    expect(Array.from((again.tensors.get('pooler.dense.weight')!.data as Float32Array).slice(0, 8))).toEqual(
      Array.from((model.tensors.get('pooler.dense.weight')!.data as Float32Array).slice(0, 8)),
    );
  });
});
