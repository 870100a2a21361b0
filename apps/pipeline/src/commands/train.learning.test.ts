// A real learning signal, end to end on a small mini world: MLM-pretrain a tiny backbone briefly
// (the "untrained" retriever), fine-tune it on the Ins-orig mix for a few hundred steps, and
// compare both on the mini benchmark's Score (nDCG@5 of the og run, @dv/eval) and on held-out
// dev accuracy for the complement view (its positive D- in the top 10 of all dev documents).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFormatter,
  DualViewExample,
  readJsonlAll,
  type TrainingExample,
  trainerPresets,
} from '@dv/core';
import { buildMiniWorld, loadMiniWorld } from '@dv/data';
import { benchmarkEntry, createRanker, runBenchmark } from '@dv/eval';
import { createOfflineReverser, runSynthesis, templates, writeMixes } from '@dv/synth';
import { HfTokenizer, initBackend, pretrainMlm, TransformerEncoder, trainRetriever } from '@dv/train';
import { createTrainedEncoderHandle } from '@dv/train/testing';
import { describe, expect, it } from 'vitest';
// tfjs:DIR comes from the CLI's registration (@dv/eval alone knows no tfjs models).
import { registerTfjsModel } from '../tfjs-model.js';

registerTfjsModel();

/**
 * Dev accuracy of the complement view, three ways: `top1` = its positive D- scores above every
 * labelled negative of the example (D+ first, then instruction and mined hard negatives);
 * `pairwise` = D- above D+ alone; `hit10` = D- among the top 10 of the pool of every document of
 * the dev set (all lemmas), i.e. retrieval of the right entry among thousands.
 */
async function viewAccuracy(
  model: string,
  dev: TrainingExample[],
): Promise<{ top1: number; pairwise: number; hit10: number }> {
  const encoder = TransformerEncoder.fromPretrained(model);
  const handle = createTrainedEncoderHandle(
    encoder,
    HfTokenizer.fromFile(join(model, 'tokenizer.json')),
    createFormatter(),
    trainerPresets.mini.config,
  );
  const f = handle.formatter;
  const pool = new Map<string, { title: string; text: string }>();
  for (const e of dev) for (const d of [...e.positives, ...e.negatives]) pool.set(d.docid, d);
  const ids = [...pool.keys()];
  const poolEmb = await handle.embed(
    ids.map((id) => f.document(pool.get(id)!)),
    'document',
  );
  const at = new Map(ids.map((id, i) => [id, i]));
  const q = await handle.embed(
    dev.map((e) => f.query(e.query, e.instruction)),
    'query',
  );
  encoder.dispose();
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  let top1 = 0;
  let pairwise = 0;
  let hit10 = 0;
  for (const [i, e] of dev.entries()) {
    const scores = poolEmb.map((d) => dot(q[i]!, d));
    const sp = scores[at.get(e.positives[0]!.docid)!]!;
    if (e.negatives.every((n) => scores[at.get(n.docid)!]! < sp)) top1++;
    if (scores[at.get(e.negatives[0]!.docid)!]! < sp) pairwise++;
    if (scores.filter((s) => s > sp).length < 10) hit10++;
  }
  return { top1: top1 / dev.length, pairwise: pairwise / dev.length, hit10: hit10 / dev.length };
}

describe('training learns (mini world)', () => {
  it('a few hundred steps beat the untrained model on the mini Score and complement-view dev retrieval', async () => {
    await initBackend();
    const dir = mkdtempSync(join(tmpdir(), 'dv-train-learn-'));
    const worldDir = join(dir, 'world');
    await buildMiniWorld({
      out: worldDir,
      testLemmas: 150,
      devLemmas: 100,
      trainLemmas: 900,
      generalExamples: 0,
      hardNegatives: 2,
      candidates: 20,
      infosearchTopicsPerLever: 5,
      progress: 'silent',
    });
    const synth = (split: string) =>
      runSynthesis({
        seedsPath: join(worldDir, `seeds.${split}.jsonl`),
        outDir: join(dir, `synth-${split}`),
        backend: createOfflineReverser(),
        template: templates['polarity-reversal'],
        model: 'offline-reverser',
        progressMode: 'silent',
      });
    await synth('train');
    await synth('dev');
    await writeMixes({
      synthDir: join(dir, 'synth-train'),
      outDir: join(dir, 'mixes'),
      budget: 900,
      mixes: ['ins-orig'],
    });
    const dev = await readJsonlAll(join(dir, 'synth-dev', 'complement.jsonl'), DualViewExample);
    expect(dev.length).toBeGreaterThan(50);

    const mlm = await pretrainMlm({
      config: { steps: 30, batchSize: 32, maxTexts: 20_000, vocabSize: 4000, optimizer: { lr: 1e-3 } },
      corpus: join(worldDir, 'corpus.jsonl'),
      out: join(dir, 'mlm'),
    });
    const run = await trainRetriever({
      config: {
        ...trainerPresets.mini.config,
        batch: { ...trainerPresets.mini.config.batch, batchSize: 16, steps: 250 },
        checkpoint: { everySteps: 1000, keepLast: 1 },
      },
      data: join(dir, 'mixes', 'ins-orig', 'train.jsonl'),
      init: mlm.exportDir,
      out: join(dir, 'run'),
    });
    expect(run.steps).toBe(250);

    const sets = [await (await loadMiniWorld(worldDir)).loadFollowIR()];
    const score = async (model: string, name: string) => {
      const ranker = await createRanker(`tfjs:${model}`);
      const s = await runBenchmark(sets, ranker, {
        benchmark: benchmarkEntry('mini'),
        outDir: join(dir, `eval-${name}`),
      });
      return s.average.score!;
    };
    const before = {
      score: await score(mlm.exportDir, 'init'),
      complement: await viewAccuracy(mlm.exportDir, dev),
    };
    const after = {
      score: await score(run.exportDir, 'trained'),
      complement: await viewAccuracy(run.exportDir, dev),
    };
    console.log(
      'mini learning signal',
      JSON.stringify({ before, after, finalLoss: run.finalLoss, seconds: run.seconds }),
    );
    expect(after.score).toBeGreaterThan(before.score + 0.1);
    // Retrieval of the complement's entry among every dev document (lemma and gloss matching).
    expect(after.complement.hit10).toBeGreaterThan(before.complement.hit10 + 0.1);
    // D- over D+ alone needs instruction following proper: logged, not asserted; at this size
    // (2 layers, a 30-step MLM start, 250 steps) it stays near chance. The Ins-DV mix of this
    // world (both views share the lemma's title since mini world v2) does not move the loss in
    // 250 steps at this size, so this test trains on Ins-orig.
    const losses = readFileSync(join(run.out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => 'loss' in r)
      .map((r) => r.loss as number);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(losses.slice(-10))).toBeLessThan(mean(losses.slice(0, 10)));
  }, 240_000);
});
