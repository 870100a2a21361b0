/**
 * Registers `tfjs:DIR` with @dv/eval's model registry: a @dv/train model run by tfjs (an HF
 * folder: config.json + model.safetensors + tokenizer.json; or a training checkpoint with
 * tokenizer.json in it or its parent), on the backend DV_TF_BACKEND selects. @dv/train (tfjs and
 * its native binding) is imported when such a model is created, never at start-up, and @dv/eval
 * never depends on it: the CLI is where the two meet.
 */
import { DenseRanker, type ModelFactory, registerModelFactory } from '@dv/eval';

export const tfjsModelFactory: ModelFactory = {
  usage: 'tfjs:DIR',
  async create(dir, ctx) {
    if (!dir) throw new Error('tfjs needs a model folder: tfjs:DIR');
    const { TfjsEncoder } = await import('@dv/train');
    const encoder = await TfjsEncoder.fromDir(dir, { formatter: ctx.formatter });
    return new DenseRanker(encoder, { cache: ctx.cache, onEncode: ctx.onEncode });
  },
};

/**
 * Registers `tfjs:DIR` with @dv/eval's model registry (idempotent). An explicit call, not an
 * import side effect: the package is `sideEffects: false`, so the bin's bundler drops bare imports.
 */
export function registerTfjsModel(): void {
  registerModelFactory('tfjs', tfjsModelFactory);
}
