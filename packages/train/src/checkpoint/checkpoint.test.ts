import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { createMiniEncoder } from '../encoders/mini-backbones.js';
import { TransformerEncoder, toForwardInputs } from '../encoders/transformer-encoder.js';
import { applyAdamW, createAdamWState } from '../optim/adamw.js';
import {
  type CorruptCheckpoint,
  checkpointDir,
  corruptCheckpointNote,
  latestCheckpoint,
  loadCheckpoint,
  loadNewestIntactCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
  verifyCheckpoint,
} from './checkpoint.js';

const hyper = { weightDecay: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
const inputs = () => toForwardInputs({ inputIds: [[2, 7, 8, 3]], attentionMask: [[1, 1, 1, 1]] });

/** One real training step on a mini-gte so weights and moments are non-trivial. */
function trainedStep(seed: number) {
  const encoder = createMiniEncoder('mini-gte', {
    vocabSize: 20,
    seed,
    overrides: { hidden_size: 32, intermediate_size: 48 },
  });
  const names = encoder.trainableNames();
  const { grads } = tf.variableGrads(
    () => tf.sum(encoder.embed(inputs(), 'cls', false)) as tf.Scalar,
    encoder.trainableVariables(),
  );
  const byName = new Map(names.map((n, i) => [n, grads[encoder.trainableVariables()[i]!.name]!]));
  const optimizer = createAdamWState();
  applyAdamW(encoder.params, byName, optimizer, 1e-2, hyper);
  return { encoder, optimizer };
}

describe('checkpoints', async () => {
  await initBackend();

  it('round-trip weights, optimizer moments, step, RNG state and extras exactly', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-ckpt-'));
    const { encoder, optimizer } = trainedStep(3);
    const rng = createRng(42);
    rng.float();
    rng.float();
    const dir = checkpointDir(root, 17);
    await saveCheckpoint(dir, { encoder, optimizer, step: 17, rng, extra: { cursor: 5 } });
    expect(readdirSync(dir).sort()).toEqual([
      'checkpoint.json',
      'config.json',
      'model.safetensors',
      'optimizer.safetensors',
      'trainer_state.json',
    ]);
    const back = loadCheckpoint(dir);
    expect(back.step).toBe(17);
    expect(back.extra).toEqual({ cursor: 5 });
    expect(back.rng.float()).toBe(rng.float()); // the stream continues where it stopped
    expect(back.optimizer!.step).toBe(1);
    for (const [name, v] of encoder.params)
      expect(back.encoder.params.get(name)!.dataSync()).toEqual(v.dataSync());
    for (const [name, s] of optimizer.slots) {
      expect(back.optimizer!.slots.get(name)!.m.dataSync()).toEqual(s.m.dataSync());
      expect(back.optimizer!.slots.get(name)!.v.dataSync()).toEqual(s.v.dataSync());
    }
    expect(back.encoder.forward(inputs()).dataSync()).toEqual(encoder.forward(inputs()).dataSync());
    // It is also a Hugging Face folder.
    TransformerEncoder.fromPretrained(dir).dispose();
  });

  it('a failed save leaves the previous checkpoint intact and no temporary folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-ckpt-'));
    const { encoder, optimizer } = trainedStep(4);
    const dir = checkpointDir(root, 1);
    await saveCheckpoint(dir, { encoder, step: 1, rng: createRng(1) });
    // A BigInt cannot be written as JSON: the save throws after writing the weights.
    await expect(
      saveCheckpoint(dir, { encoder, optimizer, step: 2, rng: createRng(1), extra: { bad: 1n } }),
    ).rejects.toThrow();
    expect(readdirSync(root)).toEqual(['step-000001']);
    expect(loadCheckpoint(dir).step).toBe(1);
    expect(loadCheckpoint(dir).optimizer).toBeUndefined();
  });

  it('latest and prune by step; a folder without trainer_state.json is not a checkpoint', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-ckpt-'));
    const { encoder } = trainedStep(5);
    for (const step of [5, 10, 200])
      await saveCheckpoint(checkpointDir(root, step), { encoder, step, rng: createRng(0) });
    expect(latestCheckpoint(root)).toBe(checkpointDir(root, 200));
    pruneCheckpoints(root, 2);
    expect(readdirSync(root).sort()).toEqual(['step-000010', 'step-000200']);
    expect(latestCheckpoint(join(root, 'absent'))).toBeUndefined();
    writeFileSync(join(root, 'step-000010', 'trainer_state.json'), '{"format":"other"}');
    // an edited file no longer matches the digest index written with the checkpoint
    expect(() => loadCheckpoint(join(root, 'step-000010'))).toThrow(
      /trainer_state\.json does not match the checkpoint's digest index/,
    );
    expect(() => loadCheckpoint(root)).toThrow(/not a checkpoint/);
    expect(existsSync(join(root, 'step-000005'))).toBe(false);
  });

  it('a truncated newest checkpoint is found by its digest and passed over for the previous one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-ckpt-'));
    const { encoder, optimizer } = trainedStep(6);
    const head = new Map([['head.bias', tf.tensor1d([0.5, -1, 2])]]);
    optimizer.slots.set('head.bias', { m: tf.tensor1d([1, 2, 3]), v: tf.tensor1d([4, 5, 6]) });
    for (const step of [4, 8])
      await saveCheckpoint(checkpointDir(root, step), {
        encoder,
        optimizer,
        step,
        rng: createRng(step),
        tensors: head,
      });
    const index = JSON.parse(readFileSync(join(checkpointDir(root, 8), 'checkpoint.json'), 'utf8'));
    expect(Object.keys(index.files).sort()).toEqual([
      'config.json',
      'model.safetensors',
      'optimizer.safetensors',
      'tensors.safetensors',
      'trainer_state.json',
    ]);
    expect(() => verifyCheckpoint(checkpointDir(root, 8))).not.toThrow();
    const weights = join(checkpointDir(root, 8), 'model.safetensors');
    truncateSync(weights, statSync(weights).size - 100);
    expect(() => verifyCheckpoint(checkpointDir(root, 8))).toThrow(/model\.safetensors does not match/);

    const notes: CorruptCheckpoint[] = [];
    const back = loadNewestIntactCheckpoint(root, (c) => notes.push(c));
    expect(back?.step).toBe(4);
    expect(back?.path).toBe(checkpointDir(root, 4));
    expect([...back!.tensors.get('head.bias')!.data]).toEqual([0.5, -1, 2]);
    expect(back!.optimizer!.slots.get('head.bias')!.v.dataSync()).toEqual(new Float32Array([4, 5, 6]));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.path).toBe(checkpointDir(root, 8));
    expect(notes[0]!.reason).toMatch(/model\.safetensors does not match/);
    expect(corruptCheckpointNote(notes[0]!)).toContain(`checkpoint ${checkpointDir(root, 8)} is corrupt`);
    // moved aside: the next save or prune never counts it as a checkpoint
    expect(existsSync(checkpointDir(root, 8))).toBe(false);
    expect(existsSync(notes[0]!.movedTo)).toBe(true);
    expect(latestCheckpoint(root)).toBe(checkpointDir(root, 4));
    expect(loadNewestIntactCheckpoint(join(root, 'absent'))).toBeUndefined();
  });
});
