import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  createFormatter,
  miniTrainerPreset,
  paperTrainerPreset,
  type ScheduleConfig,
  TrainerConfig,
  type TrainingExample,
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
  ...miniTrainerPreset.config,
  formatter: { queryPrefix: 'query: ', documentPrefix: 'passage: ' },
  batch: { ...miniTrainerPreset.config.batch, batchSize: 6, hardNegatives: 2 },
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
      ...paperTrainerPreset.config,
      batch: { ...paperTrainerPreset.config.batch, steps: 10 },
    });
    const fields = leaves(withOptional).sort();
    expect(fields).toEqual(Object.keys(TRAINER_FIELD_MAP).sort());
    for (const [field, m] of Object.entries(TRAINER_FIELD_MAP))
      if (m.engine === null) expect((m as { why?: string }).why, field).toMatch(/\w/);
  });

  it('derives the settings the script reads from the config, field by field', () => {
    const s = sentenceTransformersSettings({
      config: paperTrainerPreset.config,
      init: 'x',
      train: 'train.jsonl',
      rows: 1,
      extraPositives: 0,
    });
    const c = paperTrainerPreset.config;
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
