/**
 * The ONNX graph of an existing Hugging Face model folder (a @dv/train export, or any BERT /
 * XLM-RoBERTa / gte "new" folder with `config.json` and `model.safetensors`), written to the
 * folder's file for the precision (@dv/core `onnxModelFile`: `onnx/model.onnx`,
 * `onnx/model_qint8.onnx`); a CLS-pooled BERT / XLM-R also gets the graph's CLS embedding form
 * (@dv/core `onnxClsModelFile`: `onnx/model_cls.onnx`, `onnx/model_qint8_cls.onnx`;
 * encoder-graph.ts `clsOnly`). Pooling and normalisation are the folder's own, read as
 * sentence-transformers reads them (@dv/core `readModelFolderSettings`), unless given; a folder
 * that declares no pooling needs one given. The ONNX encoder of @dv/eval then loads the file with
 * the same settings.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DataError,
  type OnnxPrecision,
  onnxClsModelFile,
  onnxModelFile,
  type Pooling,
  readModelFolderSettings,
} from '@dv/core';
import { parseEncoderConfig } from '../../architectures/registry.js';
import { readSafetensors } from '../../safetensors/index.js';
import { encoderWeightsFromSafetensors } from '../encoder-weights.js';
import { hasClsGraph } from './encoder-graph.js';
import { exportOnnx } from './export-onnx.js';

export interface FolderOnnxOptions {
  /** Default `fp32`. */
  readonly precision?: OnnxPrecision;
  /** Overrides the folder's pooling. */
  readonly pooling?: Pooling;
  /** Overrides the folder's normalisation (default when the folder is silent: on). */
  readonly normalize?: boolean;
  /** Replace an existing graph file (default false: an existing file is an error, never lost). */
  readonly overwrite?: boolean;
  /**
   * `false`: standard ONNX operators only (no `com.microsoft` contrib operators), for runtimes
   * other than ONNX Runtime; float32 only (the int8 graph needs ONNX Runtime's quantized
   * operators). Default: ONNX Runtime's fused operators (encoder-graph.ts).
   */
  readonly fusedOps?: boolean;
}

export interface FolderOnnxResult {
  /** The files written (the graph, and external data for models near 2 GiB). */
  readonly files: string[];
  readonly precision: OnnxPrecision;
  readonly pooling: Pooling;
  readonly normalize: boolean;
}

export function exportFolderOnnx(dir: string, options: FolderOnnxOptions = {}): FolderOnnxResult {
  const configPath = join(dir, 'config.json');
  const weightsPath = join(dir, 'model.safetensors');
  for (const p of [configPath, weightsPath])
    if (!existsSync(p))
      throw new DataError(
        p === weightsPath
          ? 'no model.safetensors (a single-file safetensors checkpoint is needed)'
          : 'no config.json',
        p,
      );
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (err) {
    throw new DataError(`not JSON: ${(err as Error).message}`, configPath);
  }
  // An unsupported or broken config fails before the (possibly large) weights are read.
  const parsed = parseEncoderConfig(config, configPath);
  const folder = readModelFolderSettings(dir);
  const pooling = options.pooling ?? folder.pooling;
  if (!pooling)
    throw new DataError(
      'the folder does not say how it pools (no modules.json or 1_Pooling/config.json): give a pooling',
      dir,
    );
  const normalize = options.normalize ?? folder.normalize ?? true;
  const precision = options.precision ?? 'fp32';
  if (options.fusedOps === false && precision !== 'fp32')
    throw new DataError(
      `a ${precision} graph needs ONNX Runtime's quantized contrib operators; standard operators only exist for fp32`,
      dir,
    );
  const targets = [join(dir, onnxModelFile(precision))];
  const withCls = pooling === 'cls' && hasClsGraph(parsed);
  if (withCls) targets.push(join(dir, onnxClsModelFile(precision)));
  for (const target of targets)
    if (existsSync(target) && !options.overwrite)
      throw new DataError(
        'exists; replace it explicitly (dv train onnx --force) or use another folder',
        target,
      );
  const weights = encoderWeightsFromSafetensors(readSafetensors(weightsPath), weightsPath);
  const input = {
    config,
    weights,
    pooling,
    normalize,
    precision,
    ...(options.fusedOps === undefined ? {} : { fusedOps: options.fusedOps }),
  };
  const files = exportOnnx(targets[0]!, input);
  if (withCls) files.push(...exportOnnx(targets[1]!, { ...input, clsOnly: true }));
  return { files, precision, pooling, normalize };
}
