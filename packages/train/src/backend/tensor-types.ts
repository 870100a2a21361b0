/**
 * The tensor types of @dv/train's published declarations. Inside the package every module
 * computes with tfjs-core's own types; its declaration files, however, need `Long` and the DOM
 * (and clash with TypeScript 7's WebGPU types), so a consumer compiling with `"types": ["node"]`
 * or `"lib": ["es2022"]` could not typecheck anything that names them. After `tsc`,
 * scripts/public-declarations.mjs points every tfjs-core type reference in dist/ at this file
 * instead, and writes dist/backend/tf.d.ts from `TfjsCore` below.
 *
 * The interfaces are the part of tfjs-core's `Tensor` a consumer reads (shape, dtype, values,
 * dispose); a tensor tfjs makes is assignable to them (checked in tensor-types.test.ts), so
 * values pass between our functions and a consumer's own tfjs code. For tfjs's full types,
 * cast: `t as unknown as import('@tensorflow/tfjs-core').Tensor`.
 */

/** tfjs-core's `Rank` enum, by its string values. */
export type Rank = 'R0' | 'R1' | 'R2' | 'R3' | 'R4' | 'R5' | 'R6';

export type DataType = 'float32' | 'int32' | 'bool' | 'complex64' | 'string';

/**
 * A tfjs tensor, as the public declarations show it. `R` mirrors tfjs's rank parameter, so
 * signatures keep their shape; like tfjs's at run time, it constrains nothing.
 */
// biome-ignore lint/correctness/noUnusedVariables: kept for tfjs's signatures (Tensor<tf.Rank>)
export interface Tensor<R extends Rank = Rank> {
  readonly id: number;
  readonly shape: readonly number[];
  readonly size: number;
  readonly dtype: DataType;
  readonly rank: number;
  readonly isDisposed: boolean;
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dataSync(): Float32Array | Int32Array | Uint8Array;
  array(): Promise<unknown>;
  arraySync(): unknown;
  dispose(): void;
}

/** A rank-0 tensor (a loss value). */
export type Scalar = Tensor<'R0'>;

/** A trainable tfjs variable. */
export interface Variable<R extends Rank = Rank> extends Tensor<R> {
  readonly name: string;
  trainable: boolean;
}

/** The part of tfjs-core's namespace `tf` that the public declarations type. */
export interface TfjsCore {
  getBackend(): string;
  memory(): { numTensors: number; numBytes: number };
  dispose(container: unknown): void;
  readonly version_core: string;
}
