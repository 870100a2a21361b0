/**
 * Stage `train/<backbone>/<mix>/seed-<s>` when `paper.compute` is `scale-out` and a launcher is
 * found (scale-out-launcher.ts): the mix is exported for sentence-transformers as
 * `dv train export` does (into `engine/`), the launcher runs the shipped `dv_st_train.py` there
 * (`torchrun --standalone --nproc_per_node N ...`, or the configured `launcher`), and the
 * model it trained is checked and becomes the stage's `export/`, the folder the eval stage reads:
 *   1. exportForEngine (@dv/train), as engine-export-stage.ts;
 *   2. launchEngine (@dv/train): waits for the launcher; its output goes to `engine.log` in the
 *      stage folder, its training progress (tqdm's step counter) to the stage's progress and its
 *      loss lines to the stage's log; an abort stops the launcher's whole process group; a
 *      failure names engine.log and quotes its last lines;
 *   3. checkEngineModel (@dv/train): `engine/output/final/` has the sentence-transformers files
 *      and loads in our tfjs encoder with the embeddings the engine gave (probe.json);
 *   4. the folder moves to `export/` and gets its ONNX graph (exportFolderOnnx, as
 *      `dv train onnx`), so `export/` holds what our trainer's export holds (HF + ST + ONNX).
 * A rerun of an unfinished stage starts the engine again from the backbone (the shipped script
 * does not resume from its checkpoints); the HF checkpoints are not stage outputs.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { requirePaper } from '../../internal/paper-hub.js';
import { stageFiles } from '../../internal/stage-files.js';
import { InterruptedError } from '../../run-dag.js';
import type { ScaleOutLaunch } from '../../scale-out-launcher.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';
import { type MixName, mixPath } from '../mixes-stage.js';
import { EXPORT_DIR } from '../pretrain-stage.js';
import { BACKBONE_EXPORT, backboneStageId } from './backbone-stage.js';
import { engineScriptSalt } from './engine-export-stage.js';

export const ENGINE_DIR = 'engine';
export const ENGINE_LOG = 'engine.log';

/**
 * tqdm's bar of the HF trainer, the one without a label: `  40%|████      | 12/30 [00:03<00:04,
 * 4.2it/s]` (`Loading weights: 100%|...` and `Map: ...` bars have one).
 */
const STEP_BAR = /^\s*\d+%\|[^|]*\|\s*(\d+)\/(\d+)\s*\[/;
/**
 * The HF trainer's log dict at each logging step, `{'loss': '1.234', ..., 'epoch': '0.5'}`; it
 * may follow the bar on the same line (tqdm.write).
 */
const LOSS_DICT = /\{'loss': '?([-\d.eE+]+|nan|inf)'?/;

export function engineTrainStage(
  config: RunConfig,
  backbone: string,
  mix: MixName,
  seed: number,
  launch: ScaleOutLaunch,
): StageSpec {
  const paper = requirePaper(config);
  const nprocPerNode = paper.scaleOut?.nprocPerNode ?? 1;
  const trainer = { ...config.train, seed };
  const init = backboneStageId(backbone);
  const steps =
    trainer.batch.steps ?? Math.ceil((config.mixes.budget * trainer.batch.epochs) / trainer.batch.batchSize);
  return {
    id: `train/${backbone}/${mix}/seed-${seed}`,
    group: 'train',
    deps: [init, 'mixes'],
    code: [{ package: '@dv/train' }, stageFileCode('paper/engine-train-stage.ts')],
    salt: engineScriptSalt(),
    config: { trainer, engine: 'sentence-transformers', nprocPerNode, launcher: launch.spec },
    // start-up of the launcher and its workers, then ~0.5 s per step of 32 (as our trainer)
    estimateSeconds: 30 + steps * 0.5 * (trainer.batch.batchSize / 32),
    async run(ctx) {
      const { checkEngineModel, EngineLaunchAborted, exportFolderOnnx, exportForEngine, launchEngine } =
        await import('@dv/train');
      const engineDir = join(ctx.dir, ENGINE_DIR);
      const exportDir = join(ctx.dir, EXPORT_DIR);
      // an unfinished earlier attempt: its model folders are not this run's
      for (const d of [exportDir, join(engineDir, 'output')]) rmSync(d, { recursive: true, force: true });
      const r = await exportForEngine({
        engine: 'sentence-transformers',
        config: trainer,
        data: mixPath(ctx.depDir('mixes'), mix),
        init: join(ctx.depDir(init), String(ctx.dep(init).summary.exportDir ?? BACKBONE_EXPORT)),
        out: engineDir,
        nprocPerNode,
        command: ['dv', 'reproduce', '--profile', 'paper'],
      });
      ctx.log(`sentence-transformers: ${r.rows} rows (${r.pairs} pairs); ${launch.argv.join(' ')}`);

      const log = join(ctx.dir, ENGINE_LOG);
      const bar = ctx.progress('engine steps', undefined, 'steps');
      let total = 0;
      let step = 0;
      let reportedSteps: number | null = null;
      try {
        await launchEngine({
          argv: launch.argv,
          cwd: engineDir,
          log,
          signal: ctx.signal,
          onLine: (line) => {
            const b = STEP_BAR.exec(line);
            if (b) {
              const [done, of] = [Number(b[1]), Number(b[2])];
              if (of !== total) {
                total = of;
                bar.setTotal(of);
              }
              if (done !== step) {
                step = done;
                bar.update(done);
              }
            }
            const l = LOSS_DICT.exec(line);
            if (l) ctx.log(`step ${step}${total ? `/${total}` : ''}: loss ${l[1]}`);
            else if (line.startsWith('{"final"'))
              reportedSteps = (JSON.parse(line) as { steps?: number }).steps ?? null;
          },
        });
      } catch (err) {
        bar.done('stopped');
        if (err instanceof EngineLaunchAborted || ctx.signal.aborted)
          throw new InterruptedError(`interrupted; the engine was stopped (log: ${log})`);
        throw err;
      }
      bar.done();

      const output = join(engineDir, 'output');
      const check = await checkEngineModel(join(output, 'final'));
      renameSync(join(output, 'final'), exportDir);
      exportFolderOnnx(exportDir, { overwrite: true });
      const history = readTrainLog(join(output, 'train-log.jsonl'));
      const losses = history.filter((x) => x.loss !== undefined).map((x) => Number(x.loss));
      const finalLoss = losses.at(-1) ?? Number.NaN;
      const engineSteps = reportedSteps ?? step;
      ctx.log(
        `${engineSteps} steps, final loss ${finalLoss.toFixed(4)}; model checked (${check.probes} probes, cosine >= ${check.minCosine.toFixed(6)}) -> ${relative(ctx.dir, exportDir)}`,
      );
      return {
        // the engine's checkpoints are its resume state, not results
        outputs: stageFiles(ctx.dir).filter((p) => !/[\\/]checkpoint-\d+[\\/]/.test(relative(ctx.dir, p))),
        summary: {
          engine: r.engine,
          rows: r.rows,
          pairs: r.pairs,
          launch: launch.spec.join(' '),
          launchScript: relative(ctx.dir, join(r.out, 'launch.sh')),
          engineLog: ENGINE_LOG,
          exportDir: relative(ctx.dir, exportDir),
          steps: engineSteps,
          finalLoss,
          probeCosine: check.minCosine,
        },
      };
    },
  };
}

function readTrainLog(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
