/**
 * The MLM backbone of `dv train mlm` and `dv train run --backbone NAME`: finds the corpus
 * (--corpus FILE, else <data-dir>/corpus.jsonl), then MLM-pretrains the mini backbone, or finds
 * it cached under --mlm-cache by config digest, holding the run folder's lock meanwhile.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MINI_BACKBONES, type MlmConfig } from '@dv/core';
import type { TrainEvent } from '@dv/train';
import { UsageError } from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';

export interface BackboneOptions {
  backbone: string;
  /** --corpus */
  corpus?: string | undefined;
  /** --data-dir (default runs/mini) */
  dataDir?: string | undefined;
  /** --mlm-out: the run folder instead of the digest-named one */
  mlmOut?: string | undefined;
  /** --mlm-cache (default runs/mlm) */
  mlmCache?: string | undefined;
}

/**
 * The MLM corpus of `--backbone`: --corpus FILE, else <data-dir>/corpus.jsonl when that exists;
 * a usage error naming --corpus otherwise (a fresh clone has no runs/mini).
 */
export function mlmCorpus(o: BackboneOptions): string {
  const { backbone } = o;
  if (!(MINI_BACKBONES as readonly string[]).includes(backbone))
    throw new UsageError(
      `unknown backbone '${backbone}'; one of: ${MINI_BACKBONES.join(', ')} (for other models download an HF folder and give --init DIR)`,
    );
  const dataDir = o.dataDir ?? 'runs/mini';
  const corpus = o.corpus ?? join(dataDir, 'corpus.jsonl');
  if (!existsSync(corpus))
    throw new UsageError(
      o.corpus
        ? `--corpus ${o.corpus} does not exist`
        : `--backbone ${backbone} pretrains on an MLM corpus: give --corpus FILE (${corpus} does not exist; 'dv data build-mini --out ${dataDir}' writes it)`,
    );
  return corpus;
}

export interface PretrainedBackbone {
  exportDir: string;
  cached: boolean;
  finalLoss: number;
  steps: number;
  out: string;
}

/** MLM-pretrains (or finds cached under --mlm-cache) the mini backbone; says which on `stderr`. */
export async function pretrainBackbone(
  o: BackboneOptions & {
    config: MlmConfig;
    stderr: NodeJS.WritableStream;
    onEvent: (e: TrainEvent) => void;
    signal?: AbortSignal;
  },
): Promise<PretrainedBackbone> {
  const corpus = mlmCorpus(o);
  const train = await import('@dv/train');
  const digest = await train.mlmDigest(o.config, [corpus]);
  const out = o.mlmOut ?? join(o.mlmCache ?? 'runs/mlm', `${o.backbone}-${digest.slice(0, 12)}`);
  const lock = lockOutputFolder(out, `dv train mlm (${o.backbone})`, {
    flag: o.mlmOut ? '--mlm-out' : '--mlm-cache',
  });
  let r: Awaited<ReturnType<typeof train.pretrainMlm>>;
  try {
    r = await train.pretrainMlm({
      config: o.config,
      corpus,
      out,
      onEvent: o.onEvent,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } finally {
    lock.release();
  }
  o.stderr.write(
    r.cached
      ? `MLM backbone: cached ${r.exportDir} (${r.steps} steps, final loss ${r.finalLoss.toFixed(4)})\n`
      : `MLM backbone: pretrained ${r.exportDir} (${r.steps} steps${r.resumedFrom !== undefined ? `, resumed from step ${r.resumedFrom}` : ''}, final loss ${r.finalLoss.toFixed(4)})\n`,
  );
  return { exportDir: r.exportDir, cached: r.cached, finalLoss: r.finalLoss, steps: r.steps, out };
}
