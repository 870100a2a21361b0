/**
 * NumPy `.npy` files (format version 1.0) for float32 matrices, so corpus embeddings load with
 * `numpy.load(path)` and `np.load(path, mmap_mode="r")` in any Python tool (faiss, mteb scripts).
 *
 * Layout (numpy/lib/format.py, "Format Version 1.0"): the magic `\x93NUMPY`, bytes 1 and 0, a
 * little-endian uint16 header length, then an ASCII dict literal
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (rows, dim), }` padded with spaces and
 * ended by `\n` so that the data starts at a multiple of 64 bytes; then the rows, row-major
 * little-endian float32.
 */
import { DataError } from '@dv/core';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** The header bytes of a float32 C-order `(rows, dim)` array. */
export function npyHeader(rows: number, dim: number): Uint8Array {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dim}), }`;
  const unpadded = 10 + dict.length + 1;
  const total = Math.ceil(unpadded / 64) * 64;
  const text = `${dict}${' '.repeat(total - unpadded)}\n`;
  const out = new Uint8Array(total);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, text.length, true);
  for (let i = 0; i < text.length; i++) out[10 + i] = text.charCodeAt(i);
  return out;
}

/** Header + data of a float32 `(rows, dim)` matrix (little-endian hosts only, as Node's are). */
export function npyBytes(matrix: Float32Array, dim: number): Uint8Array[] {
  if (dim <= 0 || matrix.length % dim !== 0)
    throw new Error(`matrix of ${matrix.length} floats is not a multiple of dim ${dim}`);
  return [
    npyHeader(matrix.length / dim, dim),
    new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength),
  ];
}

/** Parses a float32 C-order 2-D `.npy` file's bytes; `where` names the file in errors. */
export function parseNpyFloat32(
  bytes: Uint8Array,
  where: string,
): { rows: number; dim: number; data: Float32Array } {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b))
    throw new DataError('not a .npy file', where);
  const major = bytes[6]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = new TextDecoder('latin1').decode(bytes.subarray(major === 1 ? 10 : 12, start));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shape = /'shape':\s*\((\d+),\s*(\d+),?\)/.exec(header);
  if (descr !== '<f4' || fortran !== 'False' || !shape)
    throw new DataError(
      `.npy header must describe a float32 C-order 2-D array, found ${header.trim()}`,
      where,
    );
  const rows = Number(shape[1]);
  const dim = Number(shape[2]);
  if (bytes.length - start !== rows * dim * 4)
    throw new DataError(
      `.npy data is ${bytes.length - start} bytes, shape (${rows}, ${dim}) needs ${rows * dim * 4}`,
      where,
    );
  const data = new Float32Array(rows * dim);
  new Uint8Array(data.buffer).set(bytes.subarray(start));
  return { rows, dim, data };
}
