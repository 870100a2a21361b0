/**
 * How a model folder says to turn token states into one vector, read the way
 * sentence-transformers reads it (`SentenceTransformer._load_sbert_model`): `modules.json` lists
 * the modules in order (`sentence_transformers.models.Transformer`, `.Pooling`, `.Normalize`, ...),
 * each with a `path` holding its own `config.json`. The Pooling module's config sets the
 * pooling mode (`pooling_mode_cls_token`, `pooling_mode_mean_tokens`, ...); a `.Normalize` module
 * means rows are L2-normalised. Every encoder that loads a folder (ONNX in @dv/eval, tfjs in
 * @dv/train) asks this one reader, so a folder means the same thing to all of them.
 *
 * Folders without `modules.json` (plain Hugging Face exports, training checkpoints) fall back to
 * `1_Pooling/config.json` when present; what is still unknown stays `undefined`, for the caller's
 * override or documented default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../errors.js';
import { Pooling } from '../schemas/pooling.js';

export interface ModelFolderSettings {
  /** Pooling the folder declares, if it declares one. */
  pooling?: Pooling;
  /** True when a Normalize module is listed, false when modules.json lists none, else undefined. */
  normalize?: boolean;
  /** Which file decided `pooling` / `normalize` (for messages and manifests). */
  source: { pooling?: string; normalize?: string };
}

/** The parsed JSON object at `path`, null when the file is absent, a DataError when it is not JSON. */
export function readJsonIfPresent(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new DataError(`not a JSON file: ${(err as Error).message}`, path);
  }
}

/** Pooling from a sentence-transformers Pooling `config.json`. */
function poolingOf(path: string): Pooling {
  const c = readJsonIfPresent(path);
  if (!c) throw new DataError('the Pooling module has no config.json', path);
  // sentence-transformers <= 5 writes one flag per mode; 6 writes `pooling_mode: "cls"`.
  const mode = Pooling.safeParse(c.pooling_mode);
  if (mode.success) return mode.data;
  const on = Object.entries(c)
    .filter(([k, v]) => k.startsWith('pooling_mode_') && v === true)
    .map(([k]) => k);
  if (on.length === 1 && on[0] === 'pooling_mode_cls_token') return 'cls';
  if (on.length === 1 && on[0] === 'pooling_mode_mean_tokens') return 'mean';
  throw new DataError(
    `pooling ${on.join(' + ') || '(none set)'} is not supported: only pooling_mode_cls_token or pooling_mode_mean_tokens`,
    path,
  );
}

/** Reads `modules.json` / `1_Pooling` of `dir` (see the file comment). */
export function readModelFolderSettings(dir: string): ModelFolderSettings {
  const modulesPath = join(dir, 'modules.json');
  const modules = readJsonIfPresent(modulesPath) as unknown;
  if (modules !== null) {
    if (!Array.isArray(modules)) throw new DataError('modules.json is not a list of modules', modulesPath);
    const typeOf = (m: unknown) => String((m as { type?: unknown })?.type ?? '');
    const pool = modules.find((m) => typeOf(m).endsWith('.Pooling'));
    const out: ModelFolderSettings = {
      normalize: modules.some((m) => typeOf(m).endsWith('.Normalize')),
      source: { normalize: modulesPath },
    };
    if (pool) {
      const path = join(dir, String((pool as { path?: unknown }).path ?? ''), 'config.json');
      out.pooling = poolingOf(path);
      out.source.pooling = path;
    }
    return out;
  }
  const legacy = join(dir, '1_Pooling', 'config.json');
  if (existsSync(legacy)) return { pooling: poolingOf(legacy), source: { pooling: legacy } };
  return { source: {} };
}

/**
 * The longest input a model folder declares, at most 512: `tokenizer_config.json`'s
 * `model_max_length`, else `config.json`'s `max_position_embeddings` (minus the 2 offset
 * positions of XLM-RoBERTa), else 512.
 */
export function modelMaxLength(dir: string): number {
  const tok = readJsonIfPresent(join(dir, 'tokenizer_config.json'));
  const fromTokenizer = Number(tok?.model_max_length);
  if (Number.isInteger(fromTokenizer) && fromTokenizer > 0) return Math.min(512, fromTokenizer);
  const cfg = readJsonIfPresent(join(dir, 'config.json'));
  const positions = Number(cfg?.max_position_embeddings);
  if (Number.isInteger(positions) && positions > 0)
    return Math.min(512, cfg?.model_type === 'xlm-roberta' ? positions - 2 : positions);
  return 512;
}
