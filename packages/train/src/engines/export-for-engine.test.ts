import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  createFormatter,
  type ScheduleConfig,
  TrainerConfig,
  type TrainingExample,
  trainerPresets,
} from '@dv/core';
import { describe, expect, it } from 'vitest';
import { findPython, pythonTimeout } from '../export/test-utils/python.js';
import { buildBatch } from '../loop/build-batch.js';
import { learningRate } from '../optim/learning-rate.js';
import { exportForEngine, isPathLike, ST_SCRIPT } from './export-for-engine.js';
import { sentenceTransformersSettings, TRAINER_FIELD_MAP } from './sentence-transformers-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-engines-'));
const doc = (id: string, text: string, title = '') => ({ docid: id, title, text });
const d = {
  a: doc('a', 'bass the fish', 'bass'),
  b: doc('b', 'bass the guitar', 'bass'),
  c: doc('c', 'trout'),
  e: doc('e', 'cello'),
  f: doc('f', 'perch'),
};
// Two dual-view pairs sharing documents, a duplicate query (same text, other positive), an
// example with two positives and one with too few negatives.
const examples: TrainingExample[] = [
  {
    id: 'p1-o',
    query: 'bass',
    instruction: 'Only fish.',
    positives: [d.a],
    negatives: [d.b, d.c],
    view: 'original',
    pairId: 'p1',
  },
  {
    id: 'p1-c',
    query: 'bass',
    instruction: 'Not fish.',
    positives: [d.b],
    negatives: [d.a, d.c],
    view: 'complement',
    pairId: 'p1',
  },
  {
    id: 'dup',
    query: 'bass',
    instruction: 'Only fish.',
    positives: [d.f],
    negatives: [d.e],
    view: 'original',
  },
  {
    id: 'two',
    query: 'string',
    instruction: null,
    positives: [d.e, d.b],
    negatives: [d.c, d.a],
    view: 'general',
  },
  {
    id: 'p2-o',
    query: 'trout',
    instruction: 'Fish.',
    positives: [d.c],
    negatives: [d.f, d.e],
    view: 'original',
    pairId: 'p2',
  },
  {
    id: 'p2-c',
    query: 'trout',
    instruction: 'Not fish.',
    positives: [d.f],
    negatives: [d.c, d.e],
    view: 'complement',
    pairId: 'p2',
  },
];
const mix = join(dir, 'mix.jsonl');
writeFileSync(mix, `${examples.map((e) => JSON.stringify(e)).join('\n')}\n`);
const config = TrainerConfig.parse({
  ...trainerPresets.mini.config,
  formatter: { queryPrefix: 'query: ', documentPrefix: 'passage: ' },
  batch: { ...trainerPresets.mini.config.batch, batchSize: 6, hardNegatives: 2 },
});
const f = createFormatter(config.formatter);
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** Leaf paths of a parsed config (optional fields that are unset count too, via the schema's shape). */
function leaves(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
  return [prefix];
}

describe('the trainer config as engine settings', () => {
  it('maps every field of TrainerConfig (a new field fails here until it is mapped)', () => {
    const withOptional = TrainerConfig.parse({
      ...trainerPresets.paper.config,
      batch: { ...trainerPresets.paper.config.batch, steps: 10 },
    });
    const fields = leaves(withOptional).sort();
    expect(fields).toEqual(Object.keys(TRAINER_FIELD_MAP).sort());
    for (const [field, m] of Object.entries(TRAINER_FIELD_MAP))
      if (m.engine === null) expect((m as { why?: string }).why, field).toMatch(/\w/);
  });

  it('derives the settings the script reads from the config, field by field', () => {
    const s = sentenceTransformersSettings({
      config: trainerPresets.paper.config,
      init: 'x',
      train: 'train.jsonl',
      rows: 1,
      extraPositives: 0,
    });
    const c = trainerPresets.paper.config;
    expect(s.loss.temperature).toBe(0.02);
    expect(1 / s.loss.temperature).toBe(50);
    expect(s.batch.global_batch_size).toBe(c.batch.batchSize);
    expect(s.data.negatives).toBe(c.batch.hardNegatives);
    expect(s.optimizer).toEqual({
      name: 'adamw',
      lr: c.optimizer.lr,
      weight_decay: c.optimizer.weightDecay,
      beta1: c.optimizer.beta1,
      beta2: c.optimizer.beta2,
      epsilon: c.optimizer.epsilon,
      grad_clip_norm: c.optimizer.gradClipNorm ?? null,
    });
    expect(s.schedule).toEqual({
      name: c.schedule.name,
      warmup_ratio: c.schedule.warmupRatio,
      decay_ratio: c.schedule.decayRatio,
    });
    expect(s.model).toMatchObject({
      pooling: c.model.pooling,
      normalize: c.model.normalize,
      max_query_length: c.model.maxQueryLength,
      max_doc_length: c.model.maxDocLength,
    });
  });
});

describe('exportForEngine', () => {
  it('sentence-transformers: formatter output in the columns, ids for the loss, whole units adjacent', async () => {
    const out = join(dir, 'st');
    const r = await exportForEngine({
      engine: 'sentence-transformers',
      config,
      data: mix,
      init: 'BAAI/bge-m3',
      out,
      nprocPerNode: 2,
    });
    expect(r).toMatchObject({ rows: 7, pairs: 2 }); // 'two' has two positives: two rows
    expect(r.launch).toBe('torchrun --nproc_per_node 2 dv_st_train.py --settings settings.json');
    const got = rows(join(out, 'train.jsonl'));
    expect(Object.keys(got[0])).toEqual(['anchor', 'positive', 'negative_1', 'negative_2', 'label']);
    expect(got[0].anchor).toBe('query: bass Only fish.');
    expect(got[0].positive).toBe('passage: bass bass the fish');
    expect(got[2].anchor).toBe(got[0].anchor);
    // label = [unit, text group, query group, positive, negatives (2), extra positives (1)]
    expect(got.map((x) => x.label[0])).toEqual([0, 0, 1, 2, 2, 3, 3]);
    expect(got[2].label[1]).toBe(got[0].label[1]); // the duplicate query shares a text group
    expect(got[2].label[2]).toBe(got[0].label[2]); // and a query group
    expect(got[3].label.at(-1)).toBe(got[1].label[3]); // 'two' (positive e) carries b as the other positive
    expect(got[4].label[3]).toBe(got[1].label[3]); // and its second row is positive b
    expect(got[4].label.at(-1)).toBe(got[3].label[3]);
    expect(got[2].label[5]).toBe(-1); // 'dup' has one negative: the second is padding
    const settings = JSON.parse(readFileSync(join(out, 'settings.json'), 'utf8'));
    expect(settings.model.init).toBe('BAAI/bge-m3');
    expect(settings.data).toEqual({ train: 'train.jsonl', negatives: 2, extra_positives: 1, rows: 7 });
    expect(readFileSync(join(out, 'dv_st_train.py'), 'utf8')).toBe(readFileSync(ST_SCRIPT, 'utf8'));
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
  });

  it("flagembedding: rows as FlagEmbedding's reader turns them into training texts", async () => {
    const out = join(dir, 'fe');
    const r = await exportForEngine({
      engine: 'flagembedding',
      config,
      data: mix,
      init: 'org/x',
      out,
      nprocPerNode: 4,
    });
    // Transcription of FlagEmbedding/abc/finetune/embedder/AbsDataset.py (FlagOpen/FlagEmbedding),
    // AbsEmbedderTrainDataset.__getitem__: query = data['query'] unless
    // query_instruction_for_retrieval is set (we leave it unset); passages = one of data['pos']
    // then train_group_size - 1 of data['neg'] (sampled; all of them when there are exactly that
    // many); passage_instruction_for_retrieval unset leaves them as they are.
    const reader = (row: { query: string; pos: string[]; neg: string[] }, groupSize: number) => ({
      query: row.query,
      positives: row.pos,
      negatives: row.neg.length >= groupSize - 1 ? row.neg.slice(0, groupSize - 1) : row.neg,
    });
    rows(join(out, 'train.jsonl')).forEach((row, i) => {
      const e = examples[i]!;
      const t = reader(row, config.batch.hardNegatives + 1);
      expect(t.query).toBe(f.query(e.query, e.instruction));
      expect(t.positives).toEqual(e.positives.map((p) => f.document(p)));
      expect(t.negatives.sort()).toEqual(
        e.negatives
          .slice(0, 2)
          .map((p) => f.document(p))
          .sort(),
      );
    });
    const launch = readFileSync(join(out, 'launch.sh'), 'utf8');
    expect(r.launch).toContain(
      'torchrun --nproc_per_node 4 -m FlagEmbedding.finetune.embedder.encoder_only.base',
    );
    for (const arg of [
      '--train_group_size 3',
      '--temperature 0.02',
      `--query_max_len ${config.model.maxQueryLength}`,
      '--passage_max_len 64',
      '--sentence_pooling_method cls',
      '--negatives_cross_device',
      '--per_device_train_batch_size 1',
    ])
      expect(launch).toContain(arg);
    expect(launch).not.toContain('query_instruction_for_retrieval');
  });

  it("tevatron: rows as Tevatron's TrainDataset turns them into training texts", async () => {
    const out = join(dir, 'tev');
    const r = await exportForEngine({ engine: 'tevatron', config, data: mix, init: 'org/x', out });
    // Transcription of src/tevatron/retriever/dataset.py (texttron/tevatron), TrainDataset.__getitem__,
    // the 'positive_passages' branch: query = query_prefix ('' by default) + group['query'];
    // a passage's text = title + ' ' + text when it has a 'title' key, else text, prefixed by
    // passage_prefix (''); train_group_size - 1 negatives.
    const text = (p: { title?: string; text: string }) => ('title' in p ? `${p.title} ${p.text}` : p.text);
    rows(join(out, 'train.jsonl')).forEach((row, i) => {
      const e = examples[i]!;
      expect(row.query_id).toBe(e.id);
      expect(row.query).toBe(f.query(e.query, e.instruction));
      expect(row.positive_passages.map(text)).toEqual(e.positives.map((p) => f.document(p)));
      expect(row.negative_passages.map(text)).toEqual(e.negatives.slice(0, 2).map((p) => f.document(p)));
    });
    expect(r.launch).toContain('torchrun --nproc_per_node 1 -m tevatron.retriever.driver.train');
    for (const arg of [
      '--dataset_name json',
      '--dataset_path train.jsonl',
      '--train_group_size 3',
      '--pooling cls',
      '--normalize',
      '--temperature 0.02',
    ])
      expect(r.launch).toContain(arg);
  });

  it('a missing mix and a backbone folder without config.json are data errors', async () => {
    await expect(
      exportForEngine({
        engine: 'tevatron',
        config,
        data: join(dir, 'nope.jsonl'),
        init: 'x',
        out: join(dir, 'x'),
      }),
    ).rejects.toThrow(/nope\.jsonl: mix file not found/);
    await expect(
      exportForEngine({ engine: 'sentence-transformers', config, data: mix, init: dir, out: join(dir, 'y') }),
    ).rejects.toThrow(/no config.json in the backbone folder/);
  });

  // issue 25: `--init ./nope` was written into the launch line as a Hub id
  it('an --init written as a path that does not exist is a missing folder, not a Hub id', async () => {
    for (const init of ['./nope', '../nope', '/abs/nope', 'a/b/c', 'nope/', '~/m', 'a\\b']) {
      expect(isPathLike(init), init).toBe(true);
      await expect(
        exportForEngine({ engine: 'tevatron', config, data: mix, init, out: join(dir, 'p') }),
      ).rejects.toThrow(/the backbone folder does not exist \(a Hub id is written org\/name\)/);
    }
    for (const id of ['BAAI/bge-m3', 'bert-base-uncased', 'Alibaba-NLP/gte-multilingual-base'])
      expect(isPathLike(id), id).toBe(false);
  });
});

describe('the shipped Python against our trainer (reference venv)', () => {
  it(
    'relations equal buildBatch cell by cell; the learning rate equals learningRate step by step',
    async (ctx) => {
      const python = findPython(['torch']);
      if (!python) return ctx.skip();
      const out = join(dir, 'golden');
      await exportForEngine({ engine: 'sentence-transformers', config, data: mix, init: 'x', out });
      const labels = rows(join(out, 'train.jsonl')).map((x) => x.label as number[]);
      // ST row -> (example, positive); int id -> docid, from the labels and the examples' own order
      const rowOf = examples.flatMap((e, i) => e.positives.map((_, p) => ({ i, p })));
      expect(rowOf).toHaveLength(labels.length);
      const docOf = new Map<number, string>();
      labels.forEach((l, r) => {
        const e = examples[rowOf[r]!.i]!;
        docOf.set(l[3]!, e.positives[rowOf[r]!.p]!.docid);
        e.negatives.slice(0, 2).forEach((n, j) => {
          docOf.set(l[4 + j]!, n.docid);
        });
      });
      const schedules: Array<[number, ScheduleConfig]> = [
        [30, { name: 'wsd', warmupRatio: 0.05, decayRatio: 0.2 }],
        [50, { name: 'linear', warmupRatio: 0.1, decayRatio: 0.2 }],
        [10, { name: 'constant', warmupRatio: 0.25, decayRatio: 0.2 }],
      ];
      const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(dirname(ST_SCRIPT))})
import torch
from dv_st_train import relations, learning_rate_factor
inp = json.load(sys.stdin)
labels = torch.tensor(inp["labels"])
out = {}
for name, ib, fn in [("default", True, True), ("no_mask", True, False), ("no_in_batch", False, True)]:
    out[name] = relations(labels, 2, 1, ib, fn).tolist()
out["lr"] = [[learning_rate_factor(s, t, sch["name"], sch["warmupRatio"], sch["decayRatio"]) for s in range(t)] for t, sch in inp["schedules"]]
print(json.dumps(out))`;
      const r = spawnSync(python, ['-c', script], {
        input: JSON.stringify({ labels, schedules }),
        encoding: 'utf8',
        timeout: pythonTimeout,
      });
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, number[][]>;
      const w = labels.length;
      const colIds = [0, 1, 2].flatMap((c) => labels.map((l) => l[3 + c]!));
      for (const [name, inBatchNegatives, maskFalseNegatives] of [
        ['default', true, true],
        ['no_mask', true, false],
        ['no_in_batch', false, true],
      ] as const) {
        const js = buildBatch(
          examples.map((e) => ({ ...e, negatives: e.negatives })),
          { hardNegatives: 2, inBatchNegatives, maskFalseNegatives, formatter: f },
        );
        for (let r = 0; r < w; r++) {
          const { i, p } = rowOf[r]!;
          const py = new Map<string, number>();
          got[name]![r]!.forEach((v, j) => {
            if (v === 0) return;
            const docid = docOf.get(colIds[j]!)!;
            expect(py.has(docid), `${name}: row ${r} counts ${docid} twice`).toBe(false);
            py.set(docid, v);
          });
          // Our loss term for positive p of example i: that positive, the row's negatives; the
          // example's other positives are left out.
          const own = examples[i]!.positives.map((x) => x.docid);
          const want = new Map(
            js.docIds
              .map((id, j) => [id, js.relations[i]![j]!] as const)
              .filter(([id, v]) => v !== 0 && (v !== 1 || id === own[p])),
          );
          expect(Object.fromEntries(py), `${name}, row ${r} (example ${i}, positive ${p})`).toEqual(
            Object.fromEntries(want),
          );
        }
      }
      // The fixture exercises every rule: a masked duplicate-query positive and a counted in-batch negative.
      expect(got.default![2]![0]).toBe(0); // 'dup' vs p1-o's positive a: same query text, masked
      expect(got.no_mask![2]![0]).toBe(-1);
      schedules.forEach(([total, sch], k) => {
        const want = Array.from({ length: total }, (_, s) => learningRate(s, total, 1, sch));
        got.lr![k]!.forEach((v, s) => {
          expect(v).toBeCloseTo(want[s]!, 12);
        });
      });
    },
    pythonTimeout,
  );
});

describe('FlagEmbedding and Tevatron launch lines, parsed by transformers (reference venv)', () => {
  const fake = join(dirname(ST_SCRIPT), '..', 'test-utils', 'fake_torchrun.py');
  /** A bin folder whose `torchrun` parses instead of launching, and whose `python` is `python`. */
  function fakeBin(python: string): string {
    const bin = mkdtempSync(join(tmpdir(), 'dv-fake-torchrun-'));
    writeFileSync(join(bin, 'python'), `#!/bin/sh\nexec ${JSON.stringify(python)} "$@"\n`, { mode: 0o755 });
    writeFileSync(
      join(bin, 'torchrun'),
      `#!/bin/sh\nexec "$(dirname "$0")/python" ${JSON.stringify(fake)} "$@"\n`,
      { mode: 0o755 },
    );
    return bin;
  }
  const launch = (out: string, bin: string, args: string[] = [], env: Record<string, string> = {}) => {
    const r = spawnSync('bash', [join(out, 'launch.sh'), ...args], {
      encoding: 'utf8',
      timeout: pythonTimeout,
      env: { ...process.env, PYTHON: '', PATH: `${bin}:${process.env.PATH}`, ...env },
    });
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    return { status: r.status, stderr: r.stderr, json: r.status === 0 ? JSON.parse(last) : undefined };
  };

  // issue 22: `--warmup_ratio` is gone from transformers 5's TrainingArguments. FlagEmbedding then
  // refused the launch line; Tevatron declares its own warmup_ratio field, so the line parsed and
  // trained with no warmup at all. Each line is now parsed by the real HfArgumentParser.
  it(
    'each launch.sh parses with HfArgumentParser over the engine arguments, with our settings; unknown flags fail',
    async (ctx) => {
      const python = findPython(['transformers', 'torch', 'accelerate']);
      if (!python) return ctx.skip();
      const bin = fakeBin(python);
      const c = config;
      const ratio = c.schedule.warmupRatio;
      expect(ratio).toBeGreaterThan(0); // else the warmup check below could not fail
      for (const engine of ['flagembedding', 'tevatron'] as const) {
        const out = join(dir, `parse-${engine}`);
        await exportForEngine({ engine, config: c, data: mix, init: 'org/x', out, nprocPerNode: 2 });
        const r = launch(out, bin);
        expect(r.status, r.stderr).toBe(0);
        const got = r.json;
        expect(got.transformers).toMatch(/^5\./);
        expect(got.nproc).toBe(2);
        // HF Trainer 5 warms up over ceil(ratio x total) steps (ours rounds: at most one step apart).
        expect(got.warmup_steps_of_1000).toBe(Math.ceil(1000 * ratio));
        expect(got.training).toMatchObject({
          learning_rate: c.optimizer.lr,
          per_device_train_batch_size: c.batch.batchSize / 2,
          gradient_accumulation_steps: c.batch.gradAccumulation,
          weight_decay: c.optimizer.weightDecay,
          max_grad_norm: c.optimizer.gradClipNorm ?? 0,
          logging_steps: c.logEverySteps,
          save_steps: c.checkpoint.everySteps,
          save_total_limit: c.checkpoint.keepLast,
          seed: c.seed,
        });
        expect(got.data).toMatchObject({
          train_group_size: c.batch.hardNegatives + 1,
          query_max_len: c.model.maxQueryLength,
          passage_max_len: c.model.maxDocLength,
        });
        if (engine === 'flagembedding') {
          expect(got.data.train_data).toEqual(['train.jsonl']);
          expect(got.data.query_instruction_for_retrieval).toBeNull();
          expect(got.training).toMatchObject({
            temperature: c.loss.temperature,
            sentence_pooling_method: c.model.pooling,
            normalize_embeddings: c.model.normalize,
            negatives_cross_device: true,
            dataloader_drop_last: false,
          });
        } else {
          expect(got.model).toMatchObject({
            model_name_or_path: 'org/x',
            temperature: c.loss.temperature,
            pooling: c.model.pooling,
            normalize: c.model.normalize,
            attn_implementation: 'sdpa',
          });
          expect(got.data).toMatchObject({ dataset_path: 'train.jsonl', positive_passage_no_shuffle: true });
        }
        // The parse has teeth: a flag the engine does not know fails it, as it fails the engine.
        const bad = launch(out, bin, ['--no_such_flag', '1']);
        expect(bad.status).not.toBe(0);
        expect(bad.stderr).toMatch(/not used by the HfArgumentParser.*no_such_flag/s);
        // and the old form: refused by FlagEmbedding, silently without warmup in Tevatron
        const old = launch(out, bin, ['--warmup_steps', '0', '--warmup_ratio', String(ratio)]);
        if (engine === 'flagembedding') expect(old.status).not.toBe(0);
        else expect(old.json.warmup_steps_of_1000).toBe(0);
      }
    },
    // six launches, each importing torch and transformers (one timed out a 180 s budget while
    // turbo ran the other packages' tests on the same 2 cores)
    3 * pythonTimeout,
  );

  it('transformers 4 gets --warmup_ratio (the version launch.sh finds next to torchrun)', async (ctx) => {
    const python = findPython([]);
    if (!python) return ctx.skip();
    // Only transformers 5 is on the local index: a stand-in package reports 4.x, and the fake
    // torchrun echoes the line instead of parsing it.
    const four = mkdtempSync(join(tmpdir(), 'dv-transformers4-'));
    mkdirSync(join(four, 'transformers'));
    writeFileSync(join(four, 'transformers', '__init__.py'), '__version__ = "4.57.1"\n');
    const bin = fakeBin(python);
    for (const engine of ['flagembedding', 'tevatron'] as const) {
      const out = join(dir, `four-${engine}`);
      await exportForEngine({ engine, config, data: mix, init: 'org/x', out });
      const r = launch(out, bin, [], { PYTHONPATH: four, DV_FAKE_TORCHRUN: 'echo' });
      expect(r.status, r.stderr).toBe(0);
      const args = r.json.args as string[];
      expect(args.slice(args.indexOf('--warmup_ratio'), args.indexOf('--warmup_ratio') + 2)).toEqual([
        '--warmup_ratio',
        String(config.schedule.warmupRatio),
      ]);
      expect(args).not.toContain('--warmup_steps');
    }
  });

  it('a warmup ratio of 1 is refused before anything is written (transformers 5 reads it as 1 step)', async () => {
    const c = TrainerConfig.parse({ ...config, schedule: { ...config.schedule, warmupRatio: 1 } });
    const out = join(dir, 'warmup-one');
    await expect(
      exportForEngine({ engine: 'tevatron', config: c, data: mix, init: 'org/x', out }),
    ).rejects.toThrow(/schedule\.warmupRatio: warmup ratio 1 is not below 1/);
    expect(existsSync(out)).toBe(false);
  });
});
