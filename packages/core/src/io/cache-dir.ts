/**
 * The one place dv keeps caches that outlive a run folder (issue 25: `dv eval run` wrote
 * `.cache/embeddings/` into whatever folder it was started from):
 *
 *   $DV_CACHE, else $XDG_CACHE_HOME/dv, else ~/.cache/dv   (never the working directory)
 *
 * (`DV_CACHE_DIR`, the older name the native TensorFlow set-up read, is honoured after
 * DV_CACHE; packages/train/scripts/setup-native-tf.mjs computes the same folder at install time.)
 *
 * `dvCacheDir(env, ...sub)` joins sub-folders (`dvCacheDir(process.env, 'embeddings')`). A
 * relative DV_CACHE or XDG_CACHE_HOME is resolved once against the working directory, as the
 * XDG spec expects absolute paths; the Hugging Face Hub cache keeps its own convention
 * (huggingface_hub's, shared with Python: see @dv/data's hubCacheDir).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function dvCacheDir(env: NodeJS.ProcessEnv = process.env, ...sub: string[]): string {
  const set = env.DV_CACHE || env.DV_CACHE_DIR;
  const base = set
    ? resolve(set)
    : join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'dv');
  return join(base, ...sub);
}
