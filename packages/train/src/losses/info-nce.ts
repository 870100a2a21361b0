/**
 * InfoNCE over an explicit relation matrix (STYLE.md practice 7: a batch is queries,
 * deduplicated documents and one relation per (query, document) cell).
 *
 * relations[i][j] = +1: document j is a positive of query i; -1: a labelled negative (hard
 * negative, instruction negative, or an in-batch document the batch builder marked as
 * negative); 0: ignored (e.g. a masked in-batch false negative). With scores
 * s_ij = (q_i . d_j) / tau, each positive cell contributes
 *
 *     -log( exp(s_ij) / (exp(s_ij) + sum_{k : r_ik = -1} exp(s_ik)) )
 *       = softplus( logsumexp_{k : r_ik = -1} s_ik - s_ij ),
 *
 * other positives of the same query are left out of its denominator, and the loss is the
 * mean over positive cells (0 when there are none). With one positive per row and every other
 * cell -1 it equals the usual cross-entropy over in-batch candidates (van den Oord et al. 2018,
 * arXiv 1807.03748; the paper's Eq. 1 with tau 0.02). Embeddings are used as given: pass
 * L2-normalised ones for cosine similarity.
 *
 * Example: queries [B, H], docs [N, H], relations [B, N] -> scalar.
 *   infoNceLoss(q, d, tf.tensor2d([[1, -1, 0], [-1, 1, -1]]), { temperature: 0.02 })
 */
import type { LossConfig } from '@dv/core';
import type { Scalar, Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';

/** Added to cells that are not negatives before the log-sum-exp: exp() of it is exactly 0. */
const excluded = -1e9;

export function infoNceLoss(
  queries: Tensor,
  docs: Tensor,
  relations: Tensor,
  loss: Pick<LossConfig, 'temperature'>,
): Scalar {
  return tf.tidy(() => {
    // The logit scale is derived here from the one configured hyper-parameter (tau).
    const scale = 1 / loss.temperature;
    const s = tf.mul(tf.matMul(queries as tf.Tensor2D, docs as tf.Tensor2D, false, true), scale);
    const r = tf.cast(relations, 'float32');
    const pos = tf.cast(tf.equal(r, 1), 'float32');
    const neg = tf.cast(tf.equal(r, -1), 'float32');
    const negLse = tf.logSumExp(tf.add(s, tf.mul(tf.sub(1, neg), excluded)), 1, true);
    const perCell = tf.softplus(tf.sub(negLse, s));
    return tf.div(tf.sum(tf.mul(perCell, pos)), tf.maximum(tf.sum(pos), 1)) as Scalar;
  });
}
