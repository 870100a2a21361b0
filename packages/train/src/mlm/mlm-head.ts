/**
 * BERT's masked-LM head (transformers `BertOnlyMLMHead`): transform = dense H->H, GELU,
 * LayerNorm; decoder = the word-embedding matrix (tied weights) plus an output bias:
 *
 *   logits = LayerNorm(gelu(h W_t^T + b_t)) E^T + b        (E: [vocab, H])
 *
 * Parameters are named as transformers names them in `BertForMaskedLM`
 * (`cls.predictions.transform.dense.weight`, ...), initialised the BERT way (N(0, 0.02),
 * LayerNorm 1/0, biases 0) from a seeded stream. The head is used by MLM pretraining only;
 * the exported encoder does not carry it (it is written next to it as mlm_head.safetensors).
 */
import { createRng } from '@dv/core';
import { type Tensor, tf, type Variable } from '../backend/tf.js';
import { geluErf } from '../internal/gelu.js';
import { layerNorm } from '../internal/layer-norm.js';

export const mlmHeadNames = {
  denseWeight: 'cls.predictions.transform.dense.weight',
  denseBias: 'cls.predictions.transform.dense.bias',
  lnWeight: 'cls.predictions.transform.LayerNorm.weight',
  lnBias: 'cls.predictions.transform.LayerNorm.bias',
  bias: 'cls.predictions.bias',
} as const;

export class MlmHead {
  private constructor(
    readonly params: Map<string, Variable>,
    readonly layerNormEps: number,
  ) {}

  static create(hidden: number, vocabSize: number, seed: number, layerNormEps = 1e-12, std = 0.02): MlmHead {
    const rng = createRng(seed).fork('mlm-head');
    const normal = new Float32Array(hidden * hidden).map(() => rng.normal() * std);
    const params = new Map<string, Variable>([
      [mlmHeadNames.denseWeight, tf.variable(tf.tensor2d(normal, [hidden, hidden]))],
      [mlmHeadNames.denseBias, tf.variable(tf.zeros([hidden]))],
      [mlmHeadNames.lnWeight, tf.variable(tf.ones([hidden]))],
      [mlmHeadNames.lnBias, tf.variable(tf.zeros([hidden]))],
      [mlmHeadNames.bias, tf.variable(tf.zeros([vocabSize]))],
    ]);
    return new MlmHead(params, layerNormEps);
  }

  /** Logits [N, vocab] for hidden states [N, H], decoding with the word embeddings [vocab, H]. */
  logits(hidden: Tensor, wordEmbeddings: Tensor): Tensor {
    const p = (n: string) => this.params.get(n)!;
    return tf.tidy(() => {
      const t = geluErf(
        tf.add(
          tf.matMul(hidden as tf.Tensor2D, p(mlmHeadNames.denseWeight) as tf.Tensor2D, false, true),
          p(mlmHeadNames.denseBias),
        ),
      );
      const n = layerNorm(t, p(mlmHeadNames.lnWeight), p(mlmHeadNames.lnBias), this.layerNormEps);
      return tf.add(
        tf.matMul(n as tf.Tensor2D, wordEmbeddings as tf.Tensor2D, false, true),
        p(mlmHeadNames.bias),
      );
    });
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
  }
}
