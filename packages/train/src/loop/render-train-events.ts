/**
 * Terminal progress for training events: a `createProgress` bar (TTY) or timestamped lines
 * (files, CI) with loss, lr, steps/s, seq/s and ETA, plus one line per checkpoint, evaluation
 * and export, and a summary at the end. Writes to `stream` (stderr in the CLI).
 */
import { createProgress, type Progress, type ProgressMode } from '@dv/core';
import type { TrainEvent, TrainEventListener } from './train-events.js';

export function renderTrainEvents(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stderr,
  mode?: ProgressMode,
): TrainEventListener {
  let progress: Progress | undefined;
  const line = (text: string) => {
    if (mode !== 'silent') stream.write(`${text}\n`);
  };
  return (e: TrainEvent) => {
    switch (e.type) {
      case 'start':
        line(
          `${e.job === 'mlm' ? 'MLM pretraining' : 'training'} -> ${e.out}: ${e.totalSteps} steps` +
            `${e.resumed ? `, resuming at step ${e.startStep}` : ''} (backend ${e.backend})`,
        );
        progress = createProgress({
          label: e.job === 'mlm' ? 'mlm' : 'train',
          total: e.totalSteps,
          unit: 'steps',
          stream,
          ...(mode ? { mode } : {}),
          intervalMs: mode === 'lines' ? 5_000 : undefined,
        } as Parameters<typeof createProgress>[0]);
        progress.update(e.startStep);
        break;
      case 'step':
        progress?.update(
          e.step,
          `loss ${e.loss.toFixed(4)} lr ${e.lr.toExponential(2)} ${e.sequencesPerSecond.toFixed(0)} seq/s`,
        );
        break;
      case 'checkpoint':
        break;
      case 'eval':
        line(
          `eval at step ${e.step}: ${Object.entries(e.results)
            .map(([k, v]) => `${k} ${v.toFixed(4)}`)
            .join(', ')}`,
        );
        break;
      case 'note':
        line(`note: ${e.message}`);
        break;
      case 'export':
        progress?.done();
        progress = undefined;
        line(`exported ${e.path}`);
        break;
      case 'done':
        progress?.done();
        progress = undefined;
        break;
    }
  };
}
