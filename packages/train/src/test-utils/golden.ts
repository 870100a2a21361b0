// Golden checks of the tfjs encoders against the Hugging Face reference outputs and gradients
// in ../shared/data-external/models/tiny-* (see each folder's SOURCE.txt). Shared by the
// native-backend test and the cpu-backend test.
import { join } from 'node:path';
import { tf } from '../backend/tf.js';
import { TransformerEncoder } from '../encoders/transformer-encoder.js';
import { readSafetensors, type SafetensorsTensor, tensorToFloat32 } from '../safetensors/index.js';
import { tinyModelDir } from './tiny-model-dir.js';

export const goldenFixtures = [
  'tiny-bert-uncased-wordpiece',
  'tiny-xlm-roberta-unigram',
  'tiny-gte-multilingual-newmodel',
] as const;

export const fixtureDir = tinyModelDir;

/** Largest |a - b| over all elements. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

function ints(t: SafetensorsTensor): tf.Tensor {
  const data = Array.from(t.data as ArrayLike<number | bigint>, Number);
  return tf.tensor(data, [...t.shape], 'int32');
}

export interface GoldenReport {
  /** Max abs difference per compared output. */
  outputs: Record<string, number>;
  /** Per parameter: max |grad - ref| / max |ref|. */
  gradients: Record<string, number>;
  /** Parameters whose reference gradient is below 1e-6 everywhere: max |grad - ref|. */
  zeroGradients: Record<string, number>;
  lossDiff: number;
}

/** Runs the fixture on the current backend and measures every difference. */
export function runGolden(dir: string): GoldenReport {
  const enc = TransformerEncoder.fromPretrained(dir);
  const ex = readSafetensors(join(dir, 'expected.safetensors')).tensors;
  const ref = (k: string) => tensorToFloat32(ex.get(k)!, k);
  const outputs: Record<string, number> = {};
  const gradients: Record<string, number> = {};
  const zeroGradients: Record<string, number> = {};
  let lossDiff = Number.NaN;
  try {
    tf.tidy(() => {
      const inputs = {
        inputIds: ints(ex.get('input_ids')!),
        attentionMask: ints(ex.get('attention_mask')!),
        ...(ex.has('token_type_ids') ? { tokenTypeIds: ints(ex.get('token_type_ids')!) } : {}),
      };
      const h = enc.forward(inputs);
      const cmp = (key: string, t: tf.Tensor | undefined, label = key) => {
        if (ex.has(key) && t) outputs[label] = maxAbsDiff(t.dataSync(), ref(key));
      };
      cmp('last_hidden_state_f32', h);
      cmp('pooler_output_f32', enc.pooler(h));
      cmp('cls_normalized_f32', enc.embed(inputs, 'cls', true));
      cmp(
        'cls_normalized_f32',
        enc.embed(inputs, 'cls', true, { rows: 'all' }),
        'cls_normalized_f32 rows=all',
      );
      cmp('mean_pooled_f32', enc.embed(inputs, 'mean', false));
      cmp('mean_normalized_f32', enc.embed(inputs, 'mean', true));
      if (ex.has('pair_input_ids')) {
        const pair = {
          inputIds: ints(ex.get('pair_input_ids')!),
          attentionMask: ints(ex.get('pair_attention_mask')!),
          tokenTypeIds: ints(ex.get('pair_token_type_ids')!),
        };
        cmp('pair_last_hidden_state_f32', enc.forward(pair));
      }
      const head = enc.extras.get('classifier.weight');
      if (head && ex.has('token_weights_relu_f32')) {
        const w = tf.tensor2d(head.data, [head.shape[0]!, head.shape[1]!]);
        const b = tf.tensor1d(enc.extras.get('classifier.bias')!.data);
        const weights = tf.relu(tf.add(tf.matMul(h.reshape([-1, h.shape[2]!]), w, false, true), b));
        cmp('token_weights_relu_f32', weights);
      }

      const grads = readSafetensors(join(dir, 'grads_cls_mse_f32.safetensors')).tensors;
      const target = tf.tensor(tensorToFloat32(grads.get('__target__')!, 'target'), [
        ...grads.get('__target__')!.shape,
      ]);
      const vars = enc.trainableVariables();
      const tfName = new Map(enc.trainableNames().map((n, i) => [n, vars[i]!.name]));
      const refLoss = tensorToFloat32(grads.get('__loss__')!, 'loss')[0]!;
      // The same loss through the full forward pass and through the CLS-only last layer.
      for (const rows of ['all', 'cls'] as const) {
        const { value, grads: g } = tf.variableGrads(() => {
          const cls = tf.squeeze(tf.slice(enc.forward(inputs, { rows }), [0, 0, 0], [-1, 1, -1]), [1]);
          return tf.mean(tf.square(tf.sub(cls, target))) as tf.Scalar;
        }, vars);
        const tag = rows === 'all' ? '' : 'rows=cls ';
        lossDiff = Math.max(Number.isNaN(lossDiff) ? 0 : lossDiff, Math.abs(value.dataSync()[0]! - refLoss));
        for (const [name, t] of grads) {
          if (name.startsWith('__')) continue;
          const r = tensorToFloat32(t, name);
          const mine = g[tfName.get(name) ?? ''];
          if (!mine) {
            gradients[tag + name] = Number.POSITIVE_INFINITY;
            continue;
          }
          const diff = maxAbsDiff(mine.dataSync(), r);
          // Analytically zero gradients (attention key biases: softmax is shift-invariant) are
          // float noise on both sides (~1e-8); they are compared absolutely instead.
          if (maxAbs(r) < 1e-6) zeroGradients[tag + name] = diff;
          else gradients[tag + name] = diff / maxAbs(r);
        }
      }
    });
  } finally {
    enc.dispose();
  }
  return { outputs, gradients, zeroGradients, lossDiff };
}
