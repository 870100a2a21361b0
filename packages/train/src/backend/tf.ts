/**
 * The one tfjs namespace every module of @dv/train computes with. The engine behind it is
 * chosen by `initBackend` (native TensorFlow, wasm or pure JS); the API is the same for all.
 */
import * as tf from '@tensorflow/tfjs';

export type { Tensor, Variable } from '@tensorflow/tfjs';
export { tf };
