/**
 * Float32 view of a floating-point safetensors tensor, the form the encoders and exporters
 * work in: F32 is returned as is (no copy), F16/BF16 are widened exactly, F64 is rounded.
 * Integer dtypes are refused, since silently turning ids into floats hides mistakes.
 */
import { DataError } from '@dv/core';
import { bf16ToFloat32, f16ToFloat32 } from './half-float.js';
import type { SafetensorsTensor } from './read-safetensors.js';

export function tensorToFloat32(tensor: SafetensorsTensor, name = 'tensor'): Float32Array {
  switch (tensor.dtype) {
    case 'F32':
      return tensor.data as Float32Array;
    case 'F16':
      return f16ToFloat32(tensor.data as Uint16Array);
    case 'BF16':
      return bf16ToFloat32(tensor.data as Uint16Array);
    case 'F64':
      return Float32Array.from(tensor.data as Float64Array);
    default:
      throw new DataError(`tensor "${name}": dtype ${tensor.dtype} is not a floating-point type`);
  }
}
