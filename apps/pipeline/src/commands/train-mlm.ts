/** `dv train mlm`: MLM pretraining of a mini backbone, cached by config digest (@dv/train `pretrainMlm`). */
import { join } from 'node:path';
import { defineCommand } from '../cli-kit.js';
import { mlmFlags, mlmFolderOptions } from '../run-configs/trainer-flags.js';
import { mlmRunConfig } from '../run-configs/trainer-run-config.js';
import { pretrainBackbone } from '../train/pretrain-backbone.js';
import { stopOnInterrupt } from '../train/stop-on-interrupt.js';

export const trainMlmCommand = defineCommand({
  name: 'mlm',
  summary: 'MLM-pretrain a mini backbone on a corpus (cached by config digest)',
  usage: '[--backbone mini-bert|mini-gte] [--corpus FILE] [--mlm-steps N] [options]',
  description: `Masked-language-model pretraining of a mini backbone (BERT's recipe: 15% of the tokens, 80% [MASK],
10% random, 10% unchanged; tied-embedding MLM head; AdamW, warmup + linear decay) on the mini
world's corpus by default, with a WordPiece vocabulary trained on it. The run folder
(<mlm-cache>/<backbone>-<digest>/ unless --mlm-out) holds metrics.jsonl (the loss curve),
export/ (an HF folder to give 'dv train run --init'), mlm_head.safetensors, manifest.json and
summary.json; the same config and corpus again is a cache hit and trains nothing. Checkpoints
(checkpoints/, every --mlm-checkpoint-every steps and on Ctrl-C, which exits 130) let the same
command resume an interrupted run (also after kill -9) on the same loss curve; it says so.`,
  flags: mlmFlags,
  options: mlmFolderOptions,
  async run(ctx) {
    const train = await import('@dv/train');
    const onEvent = train.renderTrainEvents(ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean });
    const { controller, onSigint } = stopOnInterrupt(ctx.stderr);
    try {
      const config = mlmRunConfig(ctx.settings.mlm);
      const r = await pretrainBackbone({
        backbone: config.backbone,
        corpus: ctx.values.corpus,
        dataDir: ctx.values['data-dir'],
        mlmOut: ctx.values['mlm-out'],
        mlmCache: ctx.values['mlm-cache'],
        config,
        stderr: ctx.stderr,
        onEvent,
        signal: controller.signal,
      });
      ctx.stdout.write(
        `${r.cached ? 'cached' : 'pretrained'}: ${r.exportDir}\n  loss curve: ${join(r.out, 'metrics.jsonl')}\n`,
      );
      return 0;
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      ctx.stderr.write('interrupted: the MLM checkpoint is kept; re-run the same command to resume\n');
      return 130;
    } finally {
      process.off('SIGINT', onSigint);
    }
  },
});
