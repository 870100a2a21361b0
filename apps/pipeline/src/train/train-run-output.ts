/**
 * What `dv train run` prints on stdout: one JSON object with `--json` (out, exportDir, steps,
 * finalLoss, ..., the pretrained backbone when `--backbone`), else a few lines saying what was
 * trained and where the run folder and its export are.
 */
import type { trainRetriever } from '@dv/train';

/** What `trainRetriever` resolves to. */
type TrainRunResult = Awaited<ReturnType<typeof trainRetriever>>;

import type { PretrainedBackbone } from './pretrain-backbone.js';

export function trainRunJson(
  r: TrainRunResult,
  shown: { out: string; init: string; backbone?: PretrainedBackbone & { name: string } },
): string {
  const b = shown.backbone;
  return `${JSON.stringify({
    out: shown.out,
    exportDir: r.exportDir,
    steps: r.steps,
    finalLoss: r.finalLoss,
    alreadyComplete: r.alreadyComplete,
    resumed: r.resumed,
    seconds: r.seconds,
    ...(r.bestEval ? { bestEval: r.bestEval } : {}),
    init: shown.init,
    ...(b
      ? {
          backbone: {
            name: b.name,
            exportDir: b.exportDir,
            cached: b.cached,
            steps: b.steps,
            finalLoss: b.finalLoss,
          },
        }
      : {}),
    ...(r.staleReuse ? { staleReuse: r.staleReuse.reasons } : {}),
  })}\n`;
}

export function trainRunText(r: TrainRunResult, out: string): string {
  if (r.alreadyComplete)
    return `${out} is a finished run (${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}); nothing to do. Export: ${r.exportDir}\n`;
  return (
    `trained ${r.steps} steps${r.resumed ? ' (resumed)' : ''} in ${r.seconds.toFixed(1)} s: final loss ${r.finalLoss.toFixed(4)}` +
    `${r.bestEval ? `, best ${r.bestEval.key} ${r.bestEval.value.toFixed(4)} at step ${r.bestEval.step}` : ''}\n` +
    `  run folder: ${out} (metrics.jsonl, checkpoints/, manifest.json)\n  export:     ${r.exportDir} (HF + sentence-transformers, onnx/model.onnx)\n`
  );
}
