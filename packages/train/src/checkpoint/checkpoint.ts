/**
 * Training checkpoints: weights, optimiser state, step and RNG state, written atomically as one
 * folder. Layout (`format: dv-checkpoint-1`):
 *
 *   config.json            the encoder's Hugging Face config
 *   model.safetensors      weights by HF name (F32), task-head extras included
 *   optimizer.safetensors  AdamW moments `m/<name>` and `v/<name>` (absent without an optimiser)
 *   trainer_state.json     { format, step, optimizerStep, rng: { seed, state }, extra }
 *
 * Everything is written into a temporary sibling folder, fsynced file by file, and renamed over
 * the target; a crash leaves the previous checkpoint or the new one, never a mix. A folder
 * loads with `TransformerEncoder.fromPretrained` too, since it is a Hugging Face layout.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createRng, DataError, describeZodIssues, type Rng, writeJsonAtomic } from '@dv/core';
import { z } from 'zod';
import { tf } from '../backend/tf.js';
import { TransformerEncoder } from '../encoders/transformer-encoder.js';
import type { AdamWState } from '../optim/adamw.js';
import { readSafetensors, type SafetensorsTensorInput, writeSafetensors } from '../safetensors/index.js';

export const checkpointFormat = 'dv-checkpoint-1';

const TrainerState = z.object({
  format: z.literal(checkpointFormat),
  step: z.number().int().nonnegative(),
  optimizerStep: z.number().int().nonnegative().nullable(),
  rng: z.object({
    seed: z.number().int(),
    state: z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]),
  }),
  extra: z.record(z.string(), z.unknown()).default({}),
});
type TrainerState = z.infer<typeof TrainerState>;

export interface CheckpointInput {
  encoder: TransformerEncoder;
  optimizer?: AdamWState;
  /** Training steps completed. */
  step: number;
  /** The training loop's RNG (batch order, dropout), resumed exactly. */
  rng: Rng;
  /** JSON-serialisable extras (data cursor, run id...). */
  extra?: Record<string, unknown>;
}

export interface LoadedCheckpoint {
  encoder: TransformerEncoder;
  optimizer?: AdamWState;
  step: number;
  rng: Rng;
  extra: Record<string, unknown>;
}

function f32(t: tf.Tensor): SafetensorsTensorInput {
  return { dtype: 'F32', shape: [...t.shape], data: t.dataSync() as Float32Array };
}

/** Writes a checkpoint folder atomically (replacing one that exists). */
export async function saveCheckpoint(dir: string, input: CheckpointInput): Promise<void> {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp);
  try {
    await writeJsonAtomic(join(tmp, 'config.json'), input.encoder.config);
    const weights = new Map<string, SafetensorsTensorInput>();
    for (const [name, w] of input.encoder.toWeights())
      weights.set(name, { dtype: 'F32', shape: w.shape, data: w.data });
    writeSafetensors(join(tmp, 'model.safetensors'), weights, { format: 'pt' });
    if (input.optimizer) {
      const slots = new Map<string, SafetensorsTensorInput>();
      for (const [name, s] of input.optimizer.slots) {
        slots.set(`m/${name}`, f32(s.m));
        slots.set(`v/${name}`, f32(s.v));
      }
      writeSafetensors(join(tmp, 'optimizer.safetensors'), slots, { step: String(input.optimizer.step) });
    }
    const state: TrainerState = {
      format: checkpointFormat,
      step: input.step,
      optimizerStep: input.optimizer?.step ?? null,
      rng: { seed: input.rng.seed, state: input.rng.getState() },
      extra: input.extra ?? {},
    };
    await writeJsonAtomic(join(tmp, 'trainer_state.json'), state);
    let old: string | undefined;
    if (existsSync(dir)) {
      old = `${tmp}.old`;
      renameSync(dir, old);
    }
    renameSync(tmp, dir);
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Loads a checkpoint folder written by `saveCheckpoint`. */
export function loadCheckpoint(dir: string): LoadedCheckpoint {
  const statePath = join(dir, 'trainer_state.json');
  if (!existsSync(statePath)) throw new DataError('not a checkpoint: trainer_state.json is missing', dir);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(statePath, 'utf8'));
  } catch (err) {
    throw new DataError(`invalid JSON: ${(err as Error).message}`, statePath);
  }
  const parsed = TrainerState.safeParse(raw);
  if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), statePath);
  const state = parsed.data;
  const encoder = TransformerEncoder.fromPretrained(dir);
  let optimizer: AdamWState | undefined;
  if (state.optimizerStep !== null) {
    const path = join(dir, 'optimizer.safetensors');
    const file = readSafetensors(path);
    optimizer = { step: state.optimizerStep, slots: new Map() };
    for (const [key, t] of file.tensors) {
      const m = /^(m|v)\/(.+)$/.exec(key);
      if (!m || !encoder.params.has(m[2]!)) {
        encoder.dispose();
        throw new DataError(`unexpected optimizer tensor "${key}"`, path);
      }
      const slot = optimizer.slots.get(m[2]!) ?? { m: undefined as never, v: undefined as never };
      slot[m[1] as 'm' | 'v'] = tf.tensor(t.data as Float32Array, [...t.shape], 'float32');
      optimizer.slots.set(m[2]!, slot);
    }
  }
  return {
    encoder,
    ...(optimizer ? { optimizer } : {}),
    step: state.step,
    rng: createRng(state.rng.seed, state.rng.state),
    extra: state.extra,
  };
}

/** `<root>/step-000123`: checkpoint folders sort by step. */
export function checkpointDir(root: string, step: number): string {
  return join(root, `step-${String(step).padStart(6, '0')}`);
}

/** The newest complete checkpoint under `root`, if any. */
export function latestCheckpoint(root: string): string | undefined {
  if (!existsSync(root)) return undefined;
  const names = readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n) && existsSync(join(root, n, 'trainer_state.json')))
    .sort();
  return names.length ? join(root, names[names.length - 1]!) : undefined;
}

/** Deletes all but the newest `keepLast` checkpoints under `root` (and stale temporaries). */
export function pruneCheckpoints(root: string, keepLast: number): void {
  if (!existsSync(root)) return;
  const names = readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n))
    .sort();
  for (const n of names.slice(0, Math.max(0, names.length - keepLast)))
    rmSync(join(root, n), { recursive: true });
}
