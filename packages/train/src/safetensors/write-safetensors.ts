/**
 * safetensors writer. Produces files the reference implementation reads: header JSON with
 * `__metadata__` (string map) first, tensors laid out back to back in the order given, header
 * right-padded with spaces to a multiple of 8 bytes so every tensor's data is 8-byte aligned
 * (as huggingface/safetensors does). Files are written atomically (temp file + rename).
 *
 * Each tensor's typed array must match its dtype (F32 <- Float32Array, I64 <- BigInt64Array,
 * F16/BF16 <- Uint16Array bit patterns, see `float32ToF16`) and hold prod(shape) elements.
 */
import { writeBytesAtomic } from '@dv/core';
import { concatBytes } from '../internal/concat-bytes.js';
import {
  isSafetensorsDtype,
  type SafetensorsArray,
  type SafetensorsDtype,
  safetensorsDtypes,
} from './dtypes.js';

export interface SafetensorsTensorInput {
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  readonly data: SafetensorsArray;
}

export type SafetensorsTensorsInput =
  | ReadonlyMap<string, SafetensorsTensorInput>
  | Readonly<Record<string, SafetensorsTensorInput>>;

function entriesOf(tensors: SafetensorsTensorsInput): [string, SafetensorsTensorInput][] {
  return tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
}

/** Encodes tensors as safetensors: returns the chunks (header, then each tensor's bytes). */
export function encodeSafetensorsChunks(
  tensors: SafetensorsTensorsInput,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array[] {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new TypeError(`safetensors metadata "${k}" must be a string`);
    }
    header.__metadata__ = metadata;
  }
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of entriesOf(tensors)) {
    if (name === '__metadata__') throw new TypeError('"__metadata__" is reserved and cannot name a tensor');
    if (!isSafetensorsDtype(t.dtype)) throw new TypeError(`tensor "${name}": unknown dtype ${t.dtype}`);
    const entry = safetensorsDtypes[t.dtype];
    if (!(t.data instanceof entry.array)) {
      throw new TypeError(
        `tensor "${name}": dtype ${t.dtype} needs a ${entry.array.name}, got ${t.data.constructor.name}`,
      );
    }
    if (!t.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new TypeError(`tensor "${name}": invalid shape [${t.shape}]`);
    }
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== count) {
      throw new TypeError(
        `tensor "${name}": shape [${t.shape}] needs ${count} elements, got ${t.data.length}`,
      );
    }
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    header[name] = { dtype: t.dtype, shape: [...t.shape], data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
    chunks.push(bytes);
  }
  let json = JSON.stringify(header);
  const encoder = new TextEncoder();
  let headerBytes = encoder.encode(json);
  const pad = (8 - (headerBytes.length % 8)) % 8;
  if (pad) {
    json += ' '.repeat(pad);
    headerBytes = encoder.encode(json);
  }
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  return [prefix, headerBytes, ...chunks];
}

/** Encodes tensors as one safetensors byte array. */
export function encodeSafetensors(
  tensors: SafetensorsTensorsInput,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const chunks = encodeSafetensorsChunks(tensors, metadata);
  return concatBytes(chunks);
}

/** Writes tensors to `path` as safetensors, atomically. */
export function writeSafetensors(
  path: string,
  tensors: SafetensorsTensorsInput,
  metadata: Readonly<Record<string, string>> = {},
): void {
  writeBytesAtomic(path, encodeSafetensorsChunks(tensors, metadata));
}
