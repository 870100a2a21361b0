/**
 * `dv train onnx`: writes the ONNX graph of an existing Hugging Face model folder, float32
 * (`onnx/model.onnx`) or int8 (`onnx/model_qint8.onnx`), for `onnx:DIR` models in `dv eval`.
 * Thin over @dv/train `exportFolderOnnx`.
 */
import { guardOutputDir, OnnxPrecision, Pooling } from '@dv/core';
import { type Command, enumOption, requireString, UsageError } from '../cli-kit.js';

export const trainOnnxCommand: Command = {
  name: 'onnx',
  summary: "write a model folder's ONNX graph (float32, or int8 for faster CPU encoding)",
  usage: '--model DIR [--precision fp32|int8] [--standard-ops] [--pooling cls|mean] [--force]',
  description: `Reads config.json and model.safetensors of a Hugging Face folder (a 'dv train run' export, an
'dv train init' backbone, or a downloaded BERT / XLM-RoBERTa / gte-multilingual model) and writes its
encoder as ONNX into the folder, pooled and normalised as the folder's sentence-transformers modules say:
  --precision fp32   onnx/model.onnx (ONNX Runtime's fused attention and GELU operators)
  --precision int8   onnx/model_qint8.onnx: every Linear weight as per-column int8 (the bytes ONNX
                     Runtime's quantize_dynamic writes), activations quantized at run time; about a
                     quarter of the size and, on CPUs with VNNI, about twice as fast; 'dv eval encode
                     --precision int8' and 'dv eval run --precision int8' run it
  --standard-ops     onnx/model.onnx with standard ONNX operators only (no com.microsoft contrib
                     operators), for runtimes other than ONNX Runtime (onnxruntime-web's WebGPU
                     and WebGL backends, TensorRT, OpenVINO, tract...); same embeddings, slower in
                     ONNX Runtime; fp32 only
--pooling is needed only for folders that do not declare their pooling. An existing graph file is
replaced only with --force.`,
  options: {
    model: { type: 'string', description: 'Hugging Face model folder', valueName: 'DIR' },
    precision: {
      type: 'string',
      description: OnnxPrecision.options.join(' | '),
      valueName: 'P',
      default: 'fp32',
    },
    'standard-ops': {
      type: 'boolean',
      description: 'standard ONNX operators only, for runtimes other than ONNX Runtime (fp32)',
    },
    force: { type: 'boolean', description: 'replace an existing graph file' },
    pooling: {
      type: 'string',
      description: `${Pooling.options.join(' | ')} (default: the folder's)`,
      valueName: 'P',
    },
  },
  async run(ctx) {
    const dir = requireString(ctx, 'model');
    guardOutputDir(dir, { flag: '--model', create: false }); // it writes DIR/onnx/ (issue 25)
    const precision = enumOption(ctx, 'precision', OnnxPrecision.options) ?? 'fp32';
    const pooling = enumOption(ctx, 'pooling', Pooling.options);
    const standardOps = ctx.values['standard-ops'] === true;
    if (standardOps && precision !== 'fp32')
      throw new UsageError(
        `--standard-ops writes a float32 graph; the ${precision} graph needs ONNX Runtime's quantized operators`,
      );
    const { exportFolderOnnx } = await import('@dv/train');
    const r = exportFolderOnnx(dir, {
      precision,
      ...(pooling ? { pooling } : {}),
      overwrite: Boolean(ctx.values.force),
      ...(standardOps ? { fusedOps: false } : {}),
    });
    ctx.stdout.write(
      `wrote ${r.files.join(', ')} (${r.precision}${standardOps ? ', standard operators' : ''}, ${r.pooling} pooling${r.normalize ? ', normalised' : ''})\n`,
    );
    return 0;
  },
};
