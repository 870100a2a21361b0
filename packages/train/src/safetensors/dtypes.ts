/**
 * The safetensors dtype registry: byte size of each dtype and the typed array a tensor of that
 * dtype is returned as. Names and sizes follow the safetensors format specification
 * (https://github.com/huggingface/safetensors, "Format"). F16/BF16 are returned as their raw
 * 16-bit patterns (Uint16Array) unless the reader is asked to widen them to Float32; the 8-bit
 * float formats are returned as raw bytes.
 */

/** Typed array constructors used for safetensors data. */
export type SafetensorsArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

interface DtypeEntry {
  /** Bytes per element. */
  readonly size: number;
  /** Typed array the element data is viewed as (little-endian, like the file). */
  readonly array:
    | Float32ArrayConstructor
    | Float64ArrayConstructor
    | Int8ArrayConstructor
    | Uint8ArrayConstructor
    | Int16ArrayConstructor
    | Uint16ArrayConstructor
    | Int32ArrayConstructor
    | Uint32ArrayConstructor
    | BigInt64ArrayConstructor
    | BigUint64ArrayConstructor;
}

export const safetensorsDtypes = Object.freeze({
  BOOL: { size: 1, array: Uint8Array },
  U8: { size: 1, array: Uint8Array },
  I8: { size: 1, array: Int8Array },
  F8_E5M2: { size: 1, array: Uint8Array },
  F8_E4M3: { size: 1, array: Uint8Array },
  I16: { size: 2, array: Int16Array },
  U16: { size: 2, array: Uint16Array },
  F16: { size: 2, array: Uint16Array },
  BF16: { size: 2, array: Uint16Array },
  I32: { size: 4, array: Int32Array },
  U32: { size: 4, array: Uint32Array },
  F32: { size: 4, array: Float32Array },
  F64: { size: 8, array: Float64Array },
  I64: { size: 8, array: BigInt64Array },
  U64: { size: 8, array: BigUint64Array },
} as const satisfies Record<string, DtypeEntry>);

export type SafetensorsDtype = keyof typeof safetensorsDtypes;

export function isSafetensorsDtype(value: unknown): value is SafetensorsDtype {
  return typeof value === 'string' && Object.hasOwn(safetensorsDtypes, value);
}
