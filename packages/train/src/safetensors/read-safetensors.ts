/**
 * Strict safetensors reader. Format (https://github.com/huggingface/safetensors, "Format"):
 * 8-byte little-endian u64 N, then N bytes of UTF-8 JSON `{name: {dtype, shape, data_offsets:
 * [begin, end]}, "__metadata__"?: {string: string}}` (possibly right-padded with spaces), then
 * the data buffer; offsets are relative to the start of the buffer.
 *
 * Validation matches the reference implementation's `validate`: N within the file, JSON object
 * header, known dtype, non-negative integer shape, `(end - begin) == prod(shape) * size(dtype)`,
 * offsets in bounds, and the tensors (sorted by offset) tile the buffer exactly: the first
 * starts at 0, each starts where the previous ended (no gap, no overlap), the last ends at the
 * end of the file. Any violation throws a `DataError` naming the file and the tensor.
 *
 * Tensors come back as typed arrays: F32 -> Float32Array, F64 -> Float64Array, I64 ->
 * BigInt64Array, I32 -> Int32Array, ...; F16/BF16 as raw Uint16Array bits, or Float32Array
 * with `{ halfToFloat32: true }`. Data is viewed in place where aligned, copied otherwise.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { DataError } from '@dv/core';
import {
  isSafetensorsDtype,
  type SafetensorsArray,
  type SafetensorsDtype,
  safetensorsDtypes,
} from './dtypes.js';
import { bf16ToFloat32, f16ToFloat32 } from './half-float.js';

/** One tensor's header entry; offsets are relative to the data buffer. */
export interface SafetensorsTensorInfo {
  readonly name: string;
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  readonly dataOffsets: readonly [number, number];
}

/** A parsed, validated header. `dataStart` is the file offset of the data buffer (8 + N). */
export interface SafetensorsHeader {
  readonly tensors: ReadonlyMap<string, SafetensorsTensorInfo>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly dataStart: number;
}

export interface SafetensorsTensor {
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  readonly data: SafetensorsArray;
}

export interface SafetensorsFile {
  readonly tensors: ReadonlyMap<string, SafetensorsTensor>;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface ReadSafetensorsOptions {
  /** Return F16 and BF16 tensors widened to Float32Array (dtype then reads 'F32'). Default false. */
  readonly halfToFloat32?: boolean;
}

/** Headers larger than this are refused, like the reference implementation (100 MB). */
const maxHeaderBytes = 100_000_000;

function fail(source: string, what: string): never {
  throw new DataError(what, source);
}

/**
 * Validates the 8-byte prefix and the JSON header against a file of `fileSize` bytes.
 * `headerBytes` must hold the N header bytes that follow the prefix.
 */
export function parseSafetensorsHeader(
  headerBytes: Uint8Array,
  fileSize: number,
  source: string,
): SafetensorsHeader {
  const dataStart = 8 + headerBytes.length;
  const dataSize = fileSize - dataStart;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (e) {
    fail(source, `safetensors header is not valid UTF-8 JSON (${(e as Error).message})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    fail(source, 'safetensors header must be a JSON object');
  }
  const metadata: Record<string, string> = {};
  const tensors = new Map<string, SafetensorsTensorInfo>();
  for (const [name, entry] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        fail(source, '__metadata__ must be an object of strings');
      }
      for (const [k, v] of Object.entries(entry as Record<string, unknown>)) {
        if (typeof v !== 'string') fail(source, `__metadata__ "${k}" must be a string, got ${typeof v}`);
        metadata[k] = v;
      }
      continue;
    }
    const where = `tensor "${name}"`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      fail(source, `${where}: header entry must be an object`);
    }
    const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
    for (const key of Object.keys(entry as object)) {
      if (key !== 'dtype' && key !== 'shape' && key !== 'data_offsets') {
        fail(source, `${where}: unknown header field "${key}"`);
      }
    }
    if (!isSafetensorsDtype(dtype)) fail(source, `${where}: unknown dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      fail(source, `${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
    }
    if (
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)
    ) {
      fail(source, `${where}: data_offsets must be [begin, end] integers, got ${JSON.stringify(offsets)}`);
    }
    const [begin, end] = offsets as [number, number];
    if (end < begin) fail(source, `${where}: data_offsets [${begin}, ${end}] end before begin`);
    const expected = (shape as number[]).reduce((a, b) => a * b, 1) * safetensorsDtypes[dtype].size;
    if (end - begin !== expected) {
      fail(
        source,
        `${where}: ${end - begin} bytes in data_offsets but shape [${shape}] x ${dtype} needs ${expected}`,
      );
    }
    if (end > dataSize) {
      fail(source, `${where}: data_offsets [${begin}, ${end}] past the end of the data (${dataSize} bytes)`);
    }
    tensors.set(name, { name, dtype, shape: shape as number[], dataOffsets: [begin, end] });
  }
  const sorted = [...tensors.values()].sort(
    (a, b) => a.dataOffsets[0] - b.dataOffsets[0] || a.dataOffsets[1] - b.dataOffsets[1],
  );
  let cursor = 0;
  let previous = '';
  for (const t of sorted) {
    const [begin, end] = t.dataOffsets;
    if (begin < cursor) {
      fail(source, `tensor "${t.name}": data_offsets [${begin}, ${end}] overlap tensor "${previous}"`);
    }
    if (begin > cursor) {
      fail(source, `tensor "${t.name}": data_offsets start at ${begin}, leaving a gap after byte ${cursor}`);
    }
    cursor = end;
    previous = t.name;
  }
  if (cursor !== dataSize) {
    fail(source, `data buffer has ${dataSize} bytes but the tensors cover ${cursor}`);
  }
  return { tensors, metadata, dataStart };
}

function headerLength(prefix: Uint8Array, fileSize: number, source: string): number {
  if (fileSize < 8)
    fail(source, `file is ${fileSize} bytes, too short for the 8-byte safetensors header length`);
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(fileSize - 8)) {
    fail(source, `header length ${n} runs past the end of the file (${fileSize} bytes)`);
  }
  if (n > BigInt(maxHeaderBytes)) fail(source, `header length ${n} exceeds ${maxHeaderBytes} bytes`);
  if (n < 2n) fail(source, `header length ${n} is too short for a JSON object`);
  return Number(n);
}

/** Reads and validates only the header of a safetensors file (cheap on large models). */
export function readSafetensorsHeader(path: string): SafetensorsHeader {
  const fd = openSync(path, 'r');
  try {
    const fileSize = fstatSync(fd).size;
    const prefix = new Uint8Array(8);
    readSync(fd, prefix, 0, Math.min(8, fileSize), 0);
    const n = headerLength(prefix, fileSize, path);
    const header = new Uint8Array(n);
    readSync(fd, header, 0, n, 8);
    return parseSafetensorsHeader(header, fileSize, path);
  } finally {
    closeSync(fd);
  }
}

function viewTensor(
  bytes: Uint8Array,
  info: SafetensorsTensorInfo,
  dataStart: number,
  options: ReadSafetensorsOptions,
): SafetensorsTensor {
  const entry = safetensorsDtypes[info.dtype];
  const start = bytes.byteOffset + dataStart + info.dataOffsets[0];
  const count = (info.dataOffsets[1] - info.dataOffsets[0]) / entry.size;
  // Node Buffers are never backed by a SharedArrayBuffer.
  const buffer = bytes.buffer as ArrayBuffer;
  const data =
    start % entry.size === 0
      ? new entry.array(buffer, start, count)
      : new entry.array(buffer.slice(start, start + count * entry.size));
  if (options.halfToFloat32 && (info.dtype === 'F16' || info.dtype === 'BF16')) {
    const wide =
      info.dtype === 'F16' ? f16ToFloat32(data as Uint16Array) : bf16ToFloat32(data as Uint16Array);
    return { dtype: 'F32', shape: info.shape, data: wide };
  }
  return { dtype: info.dtype, shape: info.shape, data };
}

/** Parses a whole safetensors file held in memory; `source` names it in errors. */
export function parseSafetensors(
  bytes: Uint8Array,
  source: string,
  options: ReadSafetensorsOptions = {},
): SafetensorsFile {
  const n = headerLength(bytes.subarray(0, 8), bytes.length, source);
  const header = parseSafetensorsHeader(bytes.subarray(8, 8 + n), bytes.length, source);
  const tensors = new Map<string, SafetensorsTensor>();
  for (const [name, info] of header.tensors)
    tensors.set(name, viewTensor(bytes, info, header.dataStart, options));
  return { tensors, metadata: header.metadata };
}

/** Reads and validates a safetensors file. Throws `DataError` (`path: tensor "x": what`) if malformed. */
export function readSafetensors(path: string, options: ReadSafetensorsOptions = {}): SafetensorsFile {
  return parseSafetensors(readFileSync(path), path, options);
}
