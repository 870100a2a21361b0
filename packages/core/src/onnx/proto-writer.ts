/**
 * Minimal protocol-buffers wire-format writer (https://protobuf.dev/programming-guides/encoding/):
 * varints, 32-bit floats, length-delimited bytes and nested messages. It keeps large byte
 * payloads (tensor data) as separate chunks, so a model is never copied into one buffer.
 */

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const utf8 = new TextEncoder();

export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private pending: number[] = [];
  private flushed = 0;

  /** Total encoded length so far, in bytes. */
  get length(): number {
    return this.flushed + this.pending.length;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(Uint8Array.from(this.pending));
    this.flushed += this.pending.length;
    this.pending = [];
  }

  private push(bytes: Uint8Array): void {
    if (bytes.length < 64) {
      for (const b of bytes) this.pending.push(b);
      return;
    }
    this.flush();
    this.chunks.push(bytes);
    this.flushed += bytes.length;
  }

  /** Unsigned varint; negative numbers are written as 64-bit two's complement (int64 semantics). */
  private varint(value: number | bigint): void {
    let v = typeof value === 'bigint' ? BigInt.asUintN(64, value) : value;
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new RangeError(`varint ${v} is not a safe integer`);
      if (v < 0) v = BigInt.asUintN(64, BigInt(v));
    }
    if (typeof v === 'number') {
      while (v > 0x7f) {
        this.pending.push((v % 128) | 0x80);
        v = Math.floor(v / 128);
      }
      this.pending.push(v);
      return;
    }
    while (v > 0x7fn) {
      this.pending.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.pending.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  /** int32/int64/enum/bool field. */
  int(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
    return this;
  }

  /** float (fixed32) field. */
  float(field: number, value: number): this {
    this.tag(field, WIRE_I32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    for (const x of b) this.pending.push(x);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  message(field: number, inner: ProtoWriter): this {
    this.tag(field, WIRE_LEN);
    this.varint(inner.length);
    this.flush();
    for (const c of inner.finish()) this.chunks.push(c);
    this.flushed += inner.length;
    return this;
  }

  /** The encoded chunks, in order (their concatenation is the message). */
  finish(): Uint8Array[] {
    this.flush();
    return this.chunks;
  }
}
