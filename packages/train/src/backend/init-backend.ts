/**
 * Chooses and loads the tfjs backend: native TensorFlow on CUDA (`@tensorflow/tfjs-node-gpu`),
 * native TensorFlow on CPU (`@tensorflow/tfjs-node`), WebAssembly, then pure JS, the first that
 * loads. Native packages are optional dependencies and are required lazily, so a machine where
 * the install-time set-up (scripts/setup-native-tf.mjs) could not build them still runs.
 *
 * Override with `initBackend({ backend })` or the environment variable `DV_TF_BACKEND`
 * (`auto` | `tensorflow-gpu` | `tensorflow` | `wasm` | `cpu`). An explicit choice that cannot be
 * loaded is an error, never a silent fallback.
 */
import { createRequire } from 'node:module';
import { detectCudaDevice } from '@dv/core';
import { tf } from './tf.js';

const require = createRequire(import.meta.url);

export type BackendChoice = 'tensorflow-gpu' | 'tensorflow' | 'wasm' | 'cpu';
export const backendChoices = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;

export interface BackendInfo {
  /** What was loaded (`tensorflow-gpu` and `tensorflow` both register tfjs backend `tensorflow`). */
  choice: BackendChoice;
  /** The tfjs backend name (`tf.getBackend()`). */
  tfjsBackend: string;
  /** Why this one: the override, or which faster ones failed and how. */
  reason: string;
  /** Version of the TensorFlow C library for native backends. */
  tensorflowVersion?: string;
  tfjsVersion: string;
}

interface Candidate {
  /** Why this candidate cannot be used on this machine, or undefined to try it. */
  precheck?: () => string | undefined;
  load: () => Promise<void>;
}

function loadNative(pkg: string): () => Promise<void> {
  return async () => {
    // Registers and activates backend 'tensorflow'; throws when the binding was never built.
    require(pkg);
    if (tf.getBackend() !== 'tensorflow') await tf.setBackend('tensorflow');
  };
}

/** Fastest first; `auto` walks this order. */
const candidates = Object.freeze({
  'tensorflow-gpu': {
    precheck: () => {
      const d = detectCudaDevice();
      return d.present ? undefined : `no CUDA device (${d.evidence})`;
    },
    load: async () => {
      // TensorFlow takes all GPU memory at start unless told to grow (untested here: no GPU).
      process.env.TF_FORCE_GPU_ALLOW_GROWTH ??= 'true';
      await loadNative('@tensorflow/tfjs-node-gpu')();
    },
  },
  tensorflow: { load: loadNative('@tensorflow/tfjs-node') },
  wasm: {
    load: async () => {
      require('@tensorflow/tfjs-backend-wasm');
      await tf.setBackend('wasm');
    },
  },
  cpu: {
    load: async () => {
      await tf.setBackend('cpu');
      // The cpu backend greets Node users with a banner on first use; the doctor says it instead.
      (tf.findBackend('cpu') as unknown as { firstUse?: boolean }).firstUse = false;
    },
  },
} as const satisfies Record<BackendChoice, Candidate>);

let current: BackendInfo | undefined;

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split('\n')[0]!.slice(0, 200);
}

/**
 * Loads the backend once per process and returns what was chosen and why. Later calls return
 * the same answer unless a different explicit backend is asked for.
 */
export async function initBackend(options: { backend?: BackendChoice | 'auto' } = {}): Promise<BackendInfo> {
  const fromEnv = process.env.DV_TF_BACKEND;
  const requested = options.backend ?? (fromEnv && fromEnv !== '' ? fromEnv : 'auto');
  if (!(backendChoices as readonly string[]).includes(requested))
    throw new Error(
      `unknown tfjs backend '${requested}' (DV_TF_BACKEND): use one of ${backendChoices.join(', ')}`,
    );
  if (current && (requested === 'auto' || requested === current.choice)) return current;

  const tfjsVersion = tf.version.tfjs;
  if (requested !== 'auto') {
    const choice = requested as BackendChoice;
    try {
      await candidates[choice].load();
    } catch (err) {
      throw new Error(`tfjs backend '${choice}' was requested but cannot be loaded: ${firstLine(err)}`);
    }
    const how = options.backend ? 'requested by the caller' : 'requested by DV_TF_BACKEND';
    current = describe(choice, how, tfjsVersion);
    return current;
  }
  const notApplicable: string[] = [];
  const failed: string[] = [];
  for (const [choice, c] of Object.entries(candidates) as [BackendChoice, Candidate][]) {
    const why = c.precheck?.();
    if (why) {
      notApplicable.push(`${choice}: ${why}`);
      continue;
    }
    try {
      await c.load();
      const skipped = notApplicable.length ? ` (skipped ${notApplicable.join('; ')})` : '';
      const reason =
        failed.length === 0
          ? `fastest backend for this machine${skipped}`
          : `fallback: ${failed.join('; ')}${skipped}`;
      current = describe(choice, reason, tfjsVersion);
      return current;
    } catch (err) {
      failed.push(`${choice} failed to load: ${firstLine(err)}`);
    }
  }
  throw new Error(`no tfjs backend could be loaded: ${[...failed, ...notApplicable].join('; ')}`);
}

function describe(choice: BackendChoice, reason: string, tfjsVersion: string): BackendInfo {
  const info: BackendInfo = { choice, tfjsBackend: tf.getBackend(), reason, tfjsVersion };
  if (choice === 'tensorflow' || choice === 'tensorflow-gpu') {
    const binding = (tf.backend() as unknown as { binding?: { TF_Version?: string } }).binding;
    if (binding?.TF_Version) info.tensorflowVersion = binding.TF_Version;
  }
  return info;
}

/** The backend chosen so far in this process, if any. */
export function currentBackend(): BackendInfo | undefined {
  return current;
}
