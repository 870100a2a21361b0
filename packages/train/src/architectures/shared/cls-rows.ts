/** Rows of position 0 of a flattened hidden state (for the CLS-only last layer). */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../../backend/tf.js';

/** Rows [B*T, H] -> the rows of position 0, [B, H]. */
export function clsRows(x: Tensor, batch: number): Tensor {
  const h = x.shape[1]!;
  return tf.slice(x.reshape([batch, -1, h]), [0, 0, 0], [batch, 1, h]).reshape([batch, h]);
}
