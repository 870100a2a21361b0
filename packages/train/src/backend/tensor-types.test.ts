/**
 * The public tensor types (tensor-types.ts) stay assignable from tfjs-core's: the published
 * declarations name ours where the code computes with theirs, so a tensor our functions return
 * must fit our types, and a consumer's tfjs tensor must fit our parameters.
 */
import type * as tfc from '@tensorflow/tfjs-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Scalar, Tensor, TfjsCore, Variable } from './tensor-types.js';
import { tf } from './tf.js';

describe('public tensor types', () => {
  it('tfjs-core tensors, variables, scalars and the namespace fit them', () => {
    expectTypeOf<tfc.Tensor>().toExtend<Tensor>();
    expectTypeOf<tfc.Tensor<tfc.Rank.R2>>().toExtend<Tensor<'R2'>>();
    expectTypeOf<tfc.Scalar>().toExtend<Scalar>();
    expectTypeOf<tfc.Variable>().toExtend<Variable>();
    expectTypeOf<typeof tfc>().toExtend<TfjsCore>();
    // At run time too: the members the interfaces promise are there.
    const t: Tensor = tf.tensor2d([[1, 2]]);
    const ns: TfjsCore = tf;
    expect([t.shape, t.dtype, t.rank, t.size]).toEqual([[1, 2], 'float32', 2, 2]);
    expect(typeof ns.version_core).toBe('string');
    t.dispose();
    expect(t.isDisposed).toBe(true);
  });
});
