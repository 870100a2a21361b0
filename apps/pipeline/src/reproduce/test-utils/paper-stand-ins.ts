/**
 * Loopback stand-ins for the paper profile (tests and dry runs, never results): a tiny
 * instruction world served in the real layouts by the @dv/data loopback Hub server, and the
 * @dv/synth loopback chat server as the OpenAI-compatible endpoint.
 *   - seed data: Promptriever rows (query_id, query, only_query, only_instruction,
 *     has_instruction, positive_passages, negative_passages, new_negatives) as JSONL, at the
 *     repo of the registry's `promptriever` entry; rows without an instruction are general data;
 *   - benchmarks: FollowIR v1 folders (Robust04, News21, Core17), InfoSearch folders (six
 *     dimensions) and one MAIR task, each at its registry repo and pinned commit (unpinned
 *     entries at a commit the returned config pins);
 *   - backbones: tiny random BERT-family checkpoints (our mini-bert, written by @dv/train's
 *     checkpoint writer: config.json + model.safetensors, with a WordPiece tokenizer.json
 *     trained on the world's texts), as Hub model repos.
 * `config` is the scaled-down paper config that points at them (compute `cpu`).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createRng, type InstructedSet } from '@dv/core';
import { HUB_DATASETS, type HubDatasetName } from '@dv/data';
import {
  type LoopbackHubRepo,
  type LoopbackHubServer,
  startLoopbackHubServer,
  writeFollowIRv1,
  writeInfoSearch,
} from '@dv/data/testing';
import { type LoopbackChatServer, startLoopbackChatServer } from '@dv/synth/testing';
import { createMiniEncoder, saveCheckpoint, trainWordPiece } from '@dv/train';

const CATEGORIES: Record<string, string> = {
  animal: 'creature fauna grazing',
  music: 'melody chords singing',
  food: 'edible cooking flavour',
  tool: 'hammer workshop handle',
  plant: 'leaves flowers garden',
  place: 'village harbour region',
  person: 'worker citizen elder',
  weather: 'storms clouds rainfall',
};
const ADJ = [
  'reddish',
  'ancient',
  'little',
  'noisy',
  'hidden',
  'gentle',
  'quick',
  'rounded',
  'lofty',
  'shadowy',
];

export interface PaperStandIns {
  hub: LoopbackHubServer;
  chat: LoopbackChatServer;
  /** The scaled-down paper config (a JSON object for --config). */
  config: Record<string, unknown>;
  /** Backbone names served. */
  backbones: string[];
  close(): Promise<void>;
}

export interface PaperStandInOptions {
  /** Instruction rows of the seed data (each has a general twin). */
  seeds?: number;
  backbones?: number;
  seed?: number;
}

const filesOf = (dir: string): Record<string, Buffer> => {
  const out: Record<string, Buffer> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p);
    }
  };
  walk(dir);
  return out;
};

/** Two senses per lemma in different categories; og = "any of them", changed = "only category A". */
function followirSet(
  name: string,
  rng: ReturnType<typeof createRng>,
  topics: number,
  tag: string,
): InstructedSet {
  const corpus: InstructedSet['corpus'] = [];
  const queries: InstructedSet['queries'] = [];
  const og = new Map<string, Map<string, number>>();
  const changed = new Map<string, Map<string, number>>();
  const candidates = new Map<string, string[]>();
  for (let t = 0; t < topics; t++) {
    const lemma = `${tag}lemma${t}`;
    const [a, b] = rng.sample(Object.keys(CATEGORIES), 2) as [string, string];
    const docs = [a, b, rng.choice(Object.keys(CATEGORIES))].map((c, i) => ({
      docid: `${lemma}-${i}`,
      title: lemma,
      text: `${lemma}: a ${rng.choice(ADJ)} ${c} thing, ${CATEGORIES[c]}`,
    }));
    corpus.push(...docs);
    const id = `${tag}${t}`;
    queries.push({
      id,
      query: lemma,
      instructions: { og: `Any ${a} or ${b} sense.`, changed: `Only the ${b} sense, never the ${a} one.` },
    });
    og.set(
      id,
      new Map([
        [docs[0]!.docid, 1],
        [docs[1]!.docid, 1],
      ]),
    );
    changed.set(
      id,
      new Map([
        [docs[0]!.docid, 0],
        [docs[1]!.docid, 1],
      ]),
    );
    candidates.set(
      id,
      docs.map((d) => d.docid),
    );
  }
  return { name, corpus, queries, qrels: { og, changed }, candidates, origin: 'stand-in' };
}

function infosearchSet(name: string, rng: ReturnType<typeof createRng>, tag: string): InstructedSet {
  const f = followirSet(name, rng, 3, tag);
  const reversed = new Map([...f.qrels.og!.entries()].map(([q, m]) => [q, new Map(m)]));
  return {
    ...f,
    candidates: undefined,
    queries: f.queries.map((q) => ({
      ...q,
      instructions: { og: null, changed: q.instructions.changed, reversed: 'Anything but that sense.' },
    })),
    qrels: { og: f.qrels.og!, changed: f.qrels.changed!, reversed },
  };
}

async function setFiles(write: (dir: string, set: InstructedSet) => Promise<unknown>, set: InstructedSet) {
  const dir = mkdtempSync(join(tmpdir(), 'dv-standin-set-'));
  await write(dir, set);
  return filesOf(dir);
}

export async function startPaperStandIns(o: PaperStandInOptions = {}): Promise<PaperStandIns> {
  const rng = createRng(o.seed ?? 7);
  const nSeeds = o.seeds ?? 24;
  const rows: Record<string, unknown>[] = [];
  const texts: string[] = [];
  for (let l = 0; l < nSeeds; l++) {
    const lemma = `lemma${l}`;
    const [a, b, c] = rng.sample(Object.keys(CATEGORIES), 3) as [string, string, string];
    const p = (cat: string, i: number) => ({
      docid: `${lemma}.${i}`,
      title: lemma,
      text: `${lemma}: a ${rng.choice(ADJ)} ${cat} thing, ${CATEGORIES[cat]}`,
    });
    const [pa, pb, pc] = [p(a, 0), p(b, 1), p(c, 2)];
    texts.push(pa.text, pb.text, pc.text, `Only ${a} senses.`);
    rows.push({
      query_id: `q${l}`,
      query: `${lemma} Only ${a} senses.`,
      only_query: lemma,
      only_instruction: `Only ${a} senses.`,
      has_instruction: true,
      positive_passages: [pa],
      negative_passages: [pc],
      new_negatives: [
        { ...pb, explanation: `a ${b} sense, not ${a}`, followir_score: 0.1, joint_id: `j${l}` },
      ],
    });
    rows.push({
      query_id: `g${l}`,
      query: lemma,
      only_query: lemma,
      only_instruction: '',
      has_instruction: false,
      positive_passages: [pa],
      negative_passages: [pb, pc],
      new_negatives: [],
    });
  }
  const repos: LoopbackHubRepo[] = [];
  const pins: Array<{ name: string; revision: string }> = [];
  const dataset = (key: HubDatasetName, files: Record<string, string | Uint8Array>) => {
    const entry = HUB_DATASETS[key];
    const commit = entry.revision ?? createHash('sha1').update(`stand-in ${key}`).digest('hex');
    if (!entry.revision) pins.push({ name: key, revision: commit });
    repos.push({ type: 'dataset', repo: entry.repo, commit, files });
  };
  dataset('promptriever', {
    'data/train-00000-of-00001.jsonl': `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`,
    'README.md': '# stand-in for samaya-ai/msmarco-w-instructions\n',
  });
  const followir = {
    'followir-robust04': 'Robust04',
    'followir-news21': 'News21',
    'followir-core17': 'Core17',
  } as const;
  for (const [key, tag] of Object.entries(followir)) {
    const set = followirSet(tag, rng, 4, tag.toLowerCase());
    texts.push(
      ...set.corpus.map((d) => d.text),
      ...set.queries.flatMap((q) => [q.instructions.og ?? '', q.instructions.changed ?? '']),
    );
    dataset(key as HubDatasetName, await setFiles(writeFollowIRv1, set));
  }
  for (const dim of ['audience', 'keyword', 'format', 'language', 'length', 'source'] as const) {
    const set = infosearchSet(dim, rng, dim);
    texts.push(...set.corpus.map((d) => d.text));
    dataset(`infosearch-${dim}`, await setFiles(writeInfoSearch, set));
  }
  const mair = followirSet('mair', rng, 3, 'mair');
  dataset('mair-queries', {
    'TinyTask/queries.jsonl': `${mair.queries
      .map((q) =>
        JSON.stringify({
          qid: q.id,
          instruction: q.instructions.changed,
          query: q.query,
          labels: [...mair.qrels.changed!.get(q.id)!]
            .filter(([, s]) => s > 0)
            .map(([id, score]) => ({ id, score })),
        }),
      )
      .join('\n')}\n`,
  });
  dataset('mair-docs', {
    'TinyTask/docs.jsonl': `${mair.corpus.map((d) => JSON.stringify({ id: d.docid, doc: d.text })).join('\n')}\n`,
  });
  texts.push(...mair.corpus.map((d) => d.text));

  const tok = await trainWordPiece(texts, { vocabSize: 300, lowercase: true });
  const backbones: string[] = [];
  const models: Array<{ name: string; repo: string; revision: string }> = [];
  for (let i = 0; i < (o.backbones ?? 1); i++) {
    const name = `tiny-bert-${i + 1}`;
    const encoder = createMiniEncoder('mini-bert', {
      vocabSize: tok.vocabSize,
      seed: 11 + i,
      overrides: {
        num_hidden_layers: 1,
        hidden_size: 32,
        num_attention_heads: 1,
        intermediate_size: 64,
        hidden_dropout_prob: 0,
        max_position_embeddings: 64,
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'dv-standin-backbone-'));
    await saveCheckpoint(dir, { encoder, step: 0, rng: createRng(0) });
    encoder.dispose();
    const files = filesOf(dir);
    repos.push({
      type: 'model',
      repo: `stand-in/${name}`,
      files: {
        'config.json': files['config.json']!,
        'model.safetensors': files['model.safetensors']!,
        'tokenizer.json': tok.json,
      },
    });
    backbones.push(name);
    models.push({ name, repo: `stand-in/${name}`, revision: 'main' });
  }
  const hub = await startLoopbackHubServer({ repos });
  const chat = await startLoopbackChatServer();
  const cache = mkdtempSync(join(tmpdir(), 'dv-standin-hub-cache-'));
  const config = {
    variant: 'loopback',
    seeds: [13],
    mixes: { budget: 16, seed: 13 },
    train: {
      model: { maxQueryLength: 32, maxDocLength: 32 },
      batch: { batchSize: 8, epochs: 1, hardNegatives: 2, shuffleBuffer: 64 },
      checkpoint: { everySteps: 1000, keepLast: 1 },
      optimizer: { lr: 1e-3 },
      logEverySteps: 1,
    },
    synthesis: { baseURLs: [chat.url], model: 'loopback', concurrency: 4, maxRetries: 1 },
    eval: { batchSize: 16, maxLength: 64, encoder: 'tfjs', benchmarks: ['followir', 'infosearch', 'mair'] },
    paper: {
      seeds: { include: ['**/*.jsonl'], instructionSeeds: null, generalExamples: null },
      datasets: pins,
      models,
      hubEndpoint: hub.url,
      hubCache: cache,
      compute: 'cpu',
    },
  };
  return {
    hub,
    chat,
    config,
    backbones,
    close: async () => {
      await hub.close();
      await chat.close();
    },
  };
}
