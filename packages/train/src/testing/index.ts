/**
 * @dv/train/testing: what other packages' tests need of the training engine beyond the main
 * entry: the trainer-field map of the sentence-transformers export and the value each engine
 * is expected to receive (checked against the exported scripts), an encoder handle over a model
 * trained in memory, and the tokenizer.json of a word-piece vocabulary. Not part of the main
 * entry.
 */

export {
  expectedEngineValue,
  TRAINER_FIELD_MAP,
} from '../engines/sentence-transformers-settings.js';
export { createTrainedEncoderHandle } from '../loop/trained-encoder-handle.js';
export { wordPieceTokenizerJson } from '../tokenizer/train-word-piece.js';
