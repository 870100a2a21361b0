/**
 * The one tfjs namespace every module of @dv/train computes with: tfjs-core's API. The engine
 * behind it is chosen by `initBackend` (native TensorFlow, wasm or pure JS); the API is the same
 * for all. `@tensorflow/tfjs` is loaded for its side effect only (it registers the cpu and
 * webgl backends on the same tfjs-core engine), so the published declarations name tfjs-core
 * alone and never reach tfjs-layers' declaration files, which do not typecheck under `strict`.
 */
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs-core';
// Types only: the chained tensor methods (x.reshape(...)); the runtime gets them from tfjs.
import type {} from '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops.js';

// A require, not an import statement, so that no declaration file names the package.
createRequire(import.meta.url)('@tensorflow/tfjs');

export type { Tensor, Variable } from '@tensorflow/tfjs-core';
export { tf };
