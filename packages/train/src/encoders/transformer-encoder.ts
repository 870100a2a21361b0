/**
 * A trainable tfjs encoder with Hugging Face weights: loads `config.json` + `model.safetensors`
 * (BERT, XLM-RoBERTa, gte NewModel; see architectures/registry.ts), runs the forward pass, pools
 * sentence embeddings and hands its weights back in the exporters' format (`EncoderWeights`:
 * HF names without the base-model prefix, torch layouts).
 *
 * Parameters are tf.Variables named by their HF names; tensors in the checkpoint that the
 * architecture does not use (a task head such as gte's `classifier.*`) are kept as `extras` and
 * returned by `toWeights()` so an export round-trips them. Call `dispose()` when done.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, type Pooling, type Rng } from '@dv/core';
import type { Tensor, Variable } from '@tensorflow/tfjs-core';
import type { ForwardInputs, OutputRows, ParameterSpec } from '../architectures/encoder-architecture.js';
import { architectureOf, type EncoderConfig, parseEncoderConfig } from '../architectures/registry.js';
import { tf } from '../backend/tf.js';
import {
  type EncoderWeight,
  type EncoderWeights,
  encoderWeightsFromSafetensors,
  requireWeight,
} from '../export/encoder-weights.js';
import { readSafetensors } from '../safetensors/index.js';
import { pool, poolCls } from './pooling.js';

export type { OutputRows };

export interface EncoderBatch {
  inputIds: number[][];
  attentionMask: number[][];
  tokenTypeIds?: number[][];
}

export interface ForwardOptions {
  /** Dropout with `config.hidden_dropout_prob` when set; masks are drawn from `rng`. */
  training?: { rng: Rng };
  /**
   * `cls`: compute only position 0 of the last layer (its query, every key and value) and
   * return [B, 1, H]; the same numbers as the full pass's first position, at about 1/L less
   * work for L layers. `embed` uses it for CLS pooling unless told `all`. Default `all`.
   */
  rows?: OutputRows;
}

export class TransformerEncoder {
  readonly params: ReadonlyMap<string, Variable>;
  readonly extras: ReadonlyMap<string, EncoderWeight>;

  private constructor(
    readonly config: EncoderConfig,
    params: Map<string, Variable>,
    extras: Map<string, EncoderWeight>,
  ) {
    this.params = params;
    this.extras = extras;
  }

  /** Parameter names and shapes this config needs. */
  static parameterSpecs(config: EncoderConfig): Record<string, ParameterSpec> {
    return architectureOf(config).parameters(config);
  }

  /** From a parsed config and weights; a missing or misshapen weight is a `DataError`. */
  static fromWeights(configJson: unknown, weights: EncoderWeights, source = 'weights'): TransformerEncoder {
    const config = parseEncoderConfig(configJson, source);
    const specs = TransformerEncoder.parameterSpecs(config);
    const params = new Map<string, Variable>();
    try {
      for (const [name, spec] of Object.entries(specs)) {
        if (spec.trainable === false && !weights.has(name)) continue; // e.g. a model saved without pooler
        const data = requireWeight(weights, name, spec.shape);
        // tfjs variable names are process-global, so variables stay anonymous; the map names them.
        params.set(name, tf.variable(tf.tensor(data, spec.shape, 'float32'), spec.trainable !== false));
      }
    } catch (err) {
      for (const v of params.values()) v.dispose();
      if (err instanceof DataError) throw new DataError(err.message, source);
      throw err;
    }
    const extras = new Map([...weights].filter(([k]) => !(k in specs)));
    return new TransformerEncoder(config, params, extras);
  }

  /** Loads a Hugging Face folder with config.json and model.safetensors. */
  static fromPretrained(dir: string): TransformerEncoder {
    const configPath = join(dir, 'config.json');
    let configJson: unknown;
    try {
      configJson = JSON.parse(readFileSync(configPath, 'utf8'));
    } catch (err) {
      throw new DataError(`cannot read config: ${(err as Error).message}`, configPath);
    }
    const weightsPath = join(dir, 'model.safetensors');
    return TransformerEncoder.fromWeights(
      configJson,
      encoderWeightsFromSafetensors(readSafetensors(weightsPath), weightsPath),
      weightsPath,
    );
  }

  /** Variables the optimiser updates (all but the unused pooler), in a stable order. */
  trainableVariables(): Variable[] {
    return [...this.params.values()].filter((v) => v.trainable);
  }

  /** Names of the trainable variables, in the order of `trainableVariables()`. */
  trainableNames(): string[] {
    return [...this.params].filter(([, v]) => v.trainable).map(([k]) => k);
  }

  private param = (name: string): Tensor => {
    const v = this.params.get(name);
    if (!v) throw new Error(`parameter ${name} is not loaded`);
    return v;
  };

  /** Last hidden state [B, T, H] ([B, 1, H] with `rows: 'cls'`). Inputs are int32 tensors [B, T]. */
  forward(inputs: ForwardInputs, options: ForwardOptions = {}): Tensor {
    const rate = (this.config as { hidden_dropout_prob?: number }).hidden_dropout_prob ?? 0;
    const rng = options.training?.rng;
    const dropout =
      rng && rate > 0 ? (x: Tensor) => tf.dropout(x, rate, undefined, rng.nextUint32()) : (x: Tensor) => x;
    return architectureOf(this.config).forward(
      this.config,
      this.param,
      inputs,
      dropout,
      options.rows ?? 'all',
    );
  }

  /** The pooler output (BERT / XLM-R: tanh(W h[:,0] + b)), when the architecture and checkpoint have one. */
  pooler(hidden: Tensor): Tensor | undefined {
    const head = architectureOf(this.config).pooler;
    if (!head?.parameters.every((n) => this.params.has(n))) return undefined;
    return head.forward(this.param, poolCls(hidden));
  }

  /**
   * Sentence embeddings [B, H]: forward, pool, optionally L2-normalise. CLS pooling computes
   * only position 0 of the last layer unless `options.rows` is `all`.
   */
  embed(inputs: ForwardInputs, pooling: Pooling, normalize: boolean, options: ForwardOptions = {}): Tensor {
    const rows = options.rows ?? (pooling === 'cls' ? 'cls' : 'all');
    if (rows === 'cls' && pooling !== 'cls')
      throw new Error(`${pooling} pooling needs every row (rows: 'all')`);
    return tf.tidy(() =>
      pool(this.forward(inputs, { ...options, rows }), inputs.attentionMask, pooling, normalize),
    );
  }

  /** Current weights as plain arrays (HF names, torch layouts), extras included. */
  toWeights(): Map<string, EncoderWeight> {
    const out = new Map<string, EncoderWeight>();
    for (const [name, v] of this.params)
      out.set(name, { shape: [...v.shape], data: v.dataSync() as Float32Array });
    for (const [name, w] of this.extras) out.set(name, w);
    return out;
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
  }
}

/** Tokenizer output (nested arrays) -> int32 tensors. */
export function toForwardInputs(batch: EncoderBatch): ForwardInputs {
  return {
    inputIds: tf.tensor2d(batch.inputIds, undefined, 'int32'),
    attentionMask: tf.tensor2d(batch.attentionMask, undefined, 'int32'),
    ...(batch.tokenTypeIds ? { tokenTypeIds: tf.tensor2d(batch.tokenTypeIds, undefined, 'int32') } : {}),
  };
}
