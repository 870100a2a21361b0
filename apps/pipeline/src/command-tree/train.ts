/** `dv train`: the training engine's commands (@dv/train), each in its own file under commands/. */
import type { Command } from '../cli-kit.js';
import { trainExportCommand } from '../commands/train-export.js';
import { trainInitCommand } from '../commands/train-init.js';
import { trainMlmCommand } from '../commands/train-mlm.js';
import { trainOnnxCommand } from '../commands/train-onnx.js';
import { trainRunCommand } from '../commands/train-run.js';
import { trainVocabCommand } from '../commands/train-vocab.js';

export const trainCommand: Command = {
  name: 'train',
  summary: 'train bi-encoders: vocabulary, init, MLM pretraining, contrastive training on a mix',
  description: `Training engine commands. 'dv doctor' shows which tfjs backend they use (DV_TF_BACKEND overrides).`,
  subcommands: [
    trainVocabCommand,
    trainInitCommand,
    trainMlmCommand,
    trainRunCommand,
    trainExportCommand,
    trainOnnxCommand,
  ],
};
