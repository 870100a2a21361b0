/**
 * Conversions between IEEE 754 binary16 (F16), bfloat16 (BF16) and Float32, for safetensors
 * files stored in half precision. F16 -> F32 and BF16 -> F32 are exact; F32 -> F16/BF16 round
 * to nearest, ties to even (the rounding torch's `.half()` / `.bfloat16()` use), with overflow
 * to infinity and NaN kept NaN.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Widens raw F16 bit patterns to Float32 (exact). */
export function f16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) out[i] = sign * frac * 2 ** -24;
    else if (exp === 31) out[i] = frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
    else out[i] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return out;
}

/** Widens raw BF16 bit patterns to Float32 (exact: BF16 is the top half of an F32). */
export function bf16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) outBits[i] = bits[i]! << 16;
  return out;
}

/** Rounds Float32 values to F16 bit patterns (nearest, ties to even). */
export function float32ToF16(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i]!;
    const x = u32[0]!;
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff;
    let mant = x & 0x7fffff;
    if (exp === 0xff) {
      out[i] = sign | 0x7c00 | (mant ? 0x200 : 0);
      continue;
    }
    const e = exp - 127 + 15;
    if (e >= 31) {
      out[i] = sign | 0x7c00;
      continue;
    }
    if (e <= 0) {
      // Subnormal half (or zero): shift the mantissa with its implicit bit into place.
      if (e < -10) {
        out[i] = sign;
        continue;
      }
      mant |= 0x800000;
      const shift = 14 - e;
      const half = mant >>> shift;
      const rest = mant & ((1 << shift) - 1);
      const mid = 1 << (shift - 1);
      out[i] = sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0));
      continue;
    }
    const half = (e << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    out[i] = sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
  }
  return out;
}

/** Rounds Float32 values to BF16 bit patterns (nearest, ties to even). */
export function float32ToBf16(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i]!;
    const x = u32[0]!;
    if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) {
      out[i] = (x >>> 16) | 0x40;
      continue;
    }
    const rounded = x + 0x7fff + ((x >>> 16) & 1);
    out[i] = rounded >>> 16;
  }
  return out;
}
