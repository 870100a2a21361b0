/**
 * `--precision` of the dense-model commands (`dv eval run`, `dv eval encode`): which graph of an
 * onnx:DIR folder runs (fp32: onnx/model.onnx, int8: onnx/model_qint8.onnx from 'dv train onnx').
 */
import { OnnxPrecision } from '@dv/core';
import { type CommandContext, enumOption, UsageError } from '../cli-kit.js';

export const precisionOption = {
  precision: {
    type: 'string',
    description: `onnx:DIR graph: ${OnnxPrecision.options.join(' | ')} (int8: onnx/model_qint8.onnx, see 'dv train onnx')`,
    valueName: 'P',
  },
} as const;

/** The `--precision` value, for onnx:DIR models only. */
export function precisionFrom(ctx: CommandContext, spec: string): OnnxPrecision | undefined {
  const precision = enumOption(ctx, 'precision', OnnxPrecision.options);
  if (precision && precision !== 'fp32' && !spec.startsWith('onnx:'))
    throw new UsageError(`--precision ${precision} needs an onnx:DIR model, got '${spec}'`);
  return precision;
}
