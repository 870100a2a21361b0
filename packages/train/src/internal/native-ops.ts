/**
 * TensorFlow kernels that tfjs reaches only through slower compositions, exposed on the native
 * backend (`tensorflow`) as tfjs kernels and used by the layer functions in tf-layers.ts:
 *
 * - `DvMatMul`: TF `MatMul` on 2-D operands with transpose flags (tfjs routes every matMul
 *   through `BatchMatMulV2` plus reshapes to and from rank 3).
 * - `DvBiasAdd`: TF `BiasAdd`, y = x + b over the last axis in one pass (tfjs: broadcasting Add).
 * - `DvBiasAddGrad`: TF `BiasAddGrad`, sum over every axis but the last (tfjs: Sum + Reshape).
 *
 * On every other backend the same functions fall back to the plain tfjs ops, so callers are
 * backend-agnostic and the arithmetic is the same (golden tests run on both paths).
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';

const backendName = 'tensorflow';

interface TfAttr {
  name: string;
  type: number;
  value: unknown;
}

/** The parts of tfjs-node's NodeJSKernelBackend this module calls. */
interface NodeKernelBackend {
  binding: { TF_ATTR_TYPE: number; TF_ATTR_BOOL: number; TF_ATTR_STRING: number; TF_FLOAT: number };
  executeSingleOutput(name: string, attrs: TfAttr[], inputs: tf.TensorInfo[]): tf.TensorInfo;
}

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };

function attrsOf(backend: NodeKernelBackend, extra: [string, 'bool' | 'string', unknown][]): TfAttr[] {
  const b = backend.binding;
  return [
    { name: 'T', type: b.TF_ATTR_TYPE, value: b.TF_FLOAT },
    ...extra.map(([name, kind, value]) => ({
      name,
      type: kind === 'bool' ? b.TF_ATTR_BOOL : b.TF_ATTR_STRING,
      value,
    })),
  ];
}

let registered = false;

function registerNativeKernels(): void {
  if (registered) return;
  registered = true;
  const reg = (kernelName: string, run: (be: NodeKernelBackend, args: KernelArgs) => tf.TensorInfo) =>
    tf.registerKernel({
      kernelName,
      backendName,
      kernelFunc: ((args: KernelArgs) => run(args.backend as NodeKernelBackend, args)) as tf.KernelFunc,
    });
  reg('DvMatMul', (be, { inputs, attrs }) =>
    be.executeSingleOutput(
      'MatMul',
      attrsOf(be, [
        ['transpose_a', 'bool', Boolean(attrs?.transposeA)],
        ['transpose_b', 'bool', Boolean(attrs?.transposeB)],
      ]),
      [inputs.a!, inputs.b!],
    ),
  );
  reg('DvBiasAdd', (be, { inputs }) =>
    be.executeSingleOutput('BiasAdd', attrsOf(be, [['data_format', 'string', 'NHWC']]), [
      inputs.x!,
      inputs.bias!,
    ]),
  );
  reg('DvBiasAddGrad', (be, { inputs }) =>
    be.executeSingleOutput('BiasAddGrad', attrsOf(be, [['data_format', 'string', 'NHWC']]), [inputs.dy!]),
  );
}

/** True when the native kernels apply: backend `tensorflow` and float32 operands. */
function native(...ts: Tensor[]): boolean {
  if (tf.getBackend() !== backendName || ts.some((t) => t.dtype !== 'float32')) return false;
  registerNativeKernels();
  return true;
}

/** a @ b for 2-D a, b, either transposed first. */
export function matMul2d(a: Tensor, b: Tensor, transposeA = false, transposeB = false): Tensor {
  if (a.rank !== 2 || b.rank !== 2)
    throw new Error(`matMul2d needs 2-D operands, got ${a.rank}-D and ${b.rank}-D`);
  if (!native(a, b)) return tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, transposeA, transposeB);
  return tf.engine().runKernel('DvMatMul', { a, b }, { transposeA, transposeB });
}

/** x + bias, bias broadcast over the last axis of x. */
export function biasAdd(x: Tensor, bias: Tensor): Tensor {
  if (!native(x, bias) || x.rank < 2) return tf.add(x, bias);
  return tf.engine().runKernel('DvBiasAdd', { x, bias });
}

/** The gradient of biasAdd for its bias: dy summed over every axis but the last. */
export function biasAddGrad(dy: Tensor): Tensor {
  if (!native(dy) || dy.rank < 2)
    return tf.sum(
      dy,
      dy.shape.slice(0, -1).map((_, i) => i),
    );
  return tf.engine().runKernel('DvBiasAddGrad', { dy });
}
