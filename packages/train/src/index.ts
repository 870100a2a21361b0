/**
 * @dv/train: the training engine. tfjs on native TensorFlow (or wasm/cpu), Hugging
 * Face-compatible encoders and tokenizers, checkpoints, losses and optimisers.
 */

export {
  type BackendChoice,
  type BackendInfo,
  backendChoices,
  currentBackend,
  initBackend,
} from './backend/init-backend.js';
export { type Tensor, tf, type Variable } from './backend/tf.js';
