/**
 * The parameter names and shapes the exporters read, in Hugging Face naming without the
 * base-model prefix: the checklist a trainer's weights must satisfy. They are the
 * architecture module's parameter list (../architectures/registry.ts); tensors the sentence
 * embedding never reaches (the BERT/XLM-R pooler) are listed with `optional: true`.
 */
import { architectureOf, type EncoderConfig } from '../architectures/registry.js';

export interface WeightSpec {
  readonly shape: readonly number[];
  readonly optional?: boolean;
}

export function encoderWeightShapes(config: EncoderConfig): Map<string, WeightSpec> {
  const specs = architectureOf(config).parameters(config);
  return new Map(
    Object.entries(specs).map(([name, s]) => [
      name,
      s.trainable === false ? { shape: s.shape, optional: true } : { shape: s.shape },
    ]),
  );
}
