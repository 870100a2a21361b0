/**
 * Training checkpoints: weights, optimiser state, step and RNG state, written atomically as one
 * folder. Layout (`format: dv-checkpoint-1`):
 *
 *   config.json            the encoder's Hugging Face config
 *   model.safetensors      weights by HF name (F32), task-head extras included
 *   optimizer.safetensors  AdamW moments `m/<name>` and `v/<name>` (absent without an optimiser)
 *   tensors.safetensors    named tensors beside the encoder (e.g. the MLM head; absent if none)
 *   trainer_state.json     { format, step, optimizerStep, rng: { seed, state }, extra }
 *   checkpoint.json        written last: sha256 and size of every file above (the digest index)
 *
 * Everything is written into a temporary sibling folder, fsynced file by file, and renamed over
 * the target; a crash leaves the previous checkpoint or the new one, never a mix. A folder
 * loads with `TransformerEncoder.fromPretrained` too, since it is a Hugging Face layout.
 *
 * Loading verifies the digest index first, so a truncated or altered file is found, not only a
 * parse error (issue 25). `loadNewestIntactCheckpoint` resumes from the newest checkpoint that
 * verifies and loads, moves each newer broken one aside (`step-N.corrupt-<time>`, so pruning
 * never counts it) and reports it through `onCorrupt`.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  assertSafeOutputPath,
  createRng,
  DataError,
  describeZodIssues,
  type Rng,
  writeJsonAtomic,
} from '@dv/core';
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

export const checkpointIndexFormat = 'dv-checkpoint-index-1';
const indexName = 'checkpoint.json';
const CheckpointIndex = z.object({
  format: z.literal(checkpointIndexFormat),
  files: z.record(z.string(), z.object({ sha256: z.string(), bytes: z.number().int().nonnegative() })),
});

export interface CheckpointInput {
  encoder: TransformerEncoder;
  optimizer?: AdamWState;
  /** Training steps completed. */
  step: number;
  /** The training loop's RNG (batch order, dropout), resumed exactly. */
  rng: Rng;
  /** JSON-serialisable extras (data cursor, run id...). */
  extra?: Record<string, unknown>;
  /** Trained tensors beside the encoder (e.g. the MLM head); optimiser slots may name them. */
  tensors?: ReadonlyMap<string, tf.Tensor>;
}

export interface LoadedCheckpoint {
  encoder: TransformerEncoder;
  optimizer?: AdamWState;
  step: number;
  rng: Rng;
  extra: Record<string, unknown>;
  /** `CheckpointInput.tensors` as saved (F32 data and shapes); empty if none. */
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
}

/** sha256 and size of a file, read in chunks (checkpoints of real models are gigabytes). */
function digestFileSync(path: string): { sha256: string; bytes: number } {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(8 << 20);
  const fd = openSync(path, 'r');
  let bytes = 0;
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      h.update(buf.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: h.digest('hex'), bytes };
}

/**
 * Checks a checkpoint folder against its digest index (`checkpoint.json`): every listed file
 * present with its size and sha256, `trainer_state.json` among them. Throws a `DataError` naming
 * the first file that differs.
 */
export function verifyCheckpoint(dir: string): void {
  const indexPath = join(dir, indexName);
  if (!existsSync(indexPath))
    throw new DataError(
      `no digest index (${indexName}): the checkpoint was cut short or written by an older dv`,
      dir,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(indexPath, 'utf8'));
  } catch (err) {
    throw new DataError(`invalid JSON: ${(err as Error).message}`, indexPath);
  }
  const index = CheckpointIndex.safeParse(raw);
  if (!index.success) throw new DataError(describeZodIssues(index.error.issues), indexPath);
  if (!index.data.files['trainer_state.json'])
    throw new DataError('the digest index does not list trainer_state.json', indexPath);
  for (const [name, want] of Object.entries(index.data.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw new DataError(`${name} is missing (listed in ${indexName})`, path);
    const got = digestFileSync(path);
    if (got.bytes !== want.bytes || got.sha256 !== want.sha256)
      throw new DataError(
        `${name} does not match the checkpoint's digest index (${got.bytes} bytes, expected ${want.bytes}; sha256 ${got.sha256.slice(0, 12)}, expected ${want.sha256.slice(0, 12)})`,
        path,
      );
  }
}

function f32(t: tf.Tensor): SafetensorsTensorInput {
  return { dtype: 'F32', shape: [...t.shape], data: t.dataSync() as Float32Array };
}

/** Writes a checkpoint folder atomically (replacing one that exists). */
export async function saveCheckpoint(dir: string, input: CheckpointInput): Promise<void> {
  const parent = dirname(dir);
  // a `checkpoints` link planted in an output folder is refused, never written through (issue 25)
  assertSafeOutputPath(parent);
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
    if (input.tensors?.size) {
      const extra = new Map<string, SafetensorsTensorInput>();
      for (const [name, t] of input.tensors) extra.set(name, f32(t));
      writeSafetensors(join(tmp, 'tensors.safetensors'), extra, { format: 'pt' });
    }
    const state: TrainerState = {
      format: checkpointFormat,
      step: input.step,
      optimizerStep: input.optimizer?.step ?? null,
      rng: { seed: input.rng.seed, state: input.rng.getState() },
      extra: input.extra ?? {},
    };
    await writeJsonAtomic(join(tmp, 'trainer_state.json'), state);
    const files: Record<string, { sha256: string; bytes: number }> = {};
    for (const name of readdirSync(tmp).sort()) files[name] = digestFileSync(join(tmp, name));
    await writeJsonAtomic(join(tmp, indexName), { format: checkpointIndexFormat, files });
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

/** Loads a checkpoint folder written by `saveCheckpoint`, verified against its digest index. */
export function loadCheckpoint(dir: string): LoadedCheckpoint {
  const statePath = join(dir, 'trainer_state.json');
  if (!existsSync(statePath)) throw new DataError('not a checkpoint: trainer_state.json is missing', dir);
  verifyCheckpoint(dir);
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
  const tensors: LoadedCheckpoint['tensors'] = new Map();
  const tensorsPath = join(dir, 'tensors.safetensors');
  if (existsSync(tensorsPath))
    for (const [name, t] of readSafetensors(tensorsPath).tensors)
      tensors.set(name, { shape: [...t.shape], data: t.data as Float32Array });
  let optimizer: AdamWState | undefined;
  if (state.optimizerStep !== null) {
    const path = join(dir, 'optimizer.safetensors');
    const file = readSafetensors(path);
    optimizer = { step: state.optimizerStep, slots: new Map() };
    for (const [key, t] of file.tensors) {
      const m = /^(m|v)\/(.+)$/.exec(key);
      if (!m || !(encoder.params.has(m[2]!) || tensors.has(m[2]!))) {
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
    tensors,
  };
}

/** A checkpoint passed over by `loadNewestIntactCheckpoint`, and where it was moved. */
export interface CorruptCheckpoint {
  path: string;
  movedTo: string;
  reason: string;
}

/** The one-line note for a checkpoint passed over (`TrainEvent` 'note'). */
export function corruptCheckpointNote(c: CorruptCheckpoint): string {
  return `checkpoint ${c.path} is corrupt (${c.reason}); moved aside to ${c.movedTo}; resuming from the newest intact one`;
}

/**
 * The newest checkpoint under `root` that verifies and loads, newest first; each newer one that
 * does not is moved aside (`<name>.corrupt-<time>`) and reported to `onCorrupt`. Undefined when
 * there is no checkpoint, or none is intact (then every one was reported).
 */
export function loadNewestIntactCheckpoint(
  root: string,
  onCorrupt: (c: CorruptCheckpoint) => void = () => {},
): (LoadedCheckpoint & { path: string }) | undefined {
  if (!existsSync(root)) return undefined;
  const names = readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n))
    .sort()
    .reverse();
  for (const name of names) {
    const path = join(root, name);
    try {
      return { ...loadCheckpoint(path), path };
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      const movedTo = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(path, movedTo);
      onCorrupt({ path, movedTo, reason: (err as Error).message });
    }
  }
  return undefined;
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
