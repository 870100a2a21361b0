import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, type DataMix, type DualViewExample, SeedExample, type TrainingExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { createOfflineReverser } from './backends/offline-reverser.js';
import { complementExample, complementHardNegatives, originalExample } from './dual-view.js';
import { buildMixes, countMix, type MixExample } from './mixes.js';
import { runSynthesis } from './run-synthesis.js';
import { templates } from './template-registry.js';
import { metadataSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';
import { toSentenceTransformers, toTevatron } from './trainer-exports.js';
import { writeMixes } from './write-mixes.js';

const seeds = metadataSeeds(3).map((s) => SeedExample.parse(s));
const rec = (seed: SeedExample) => ({
  key: `k-${seed.id}`,
  seedId: seed.id,
  negativeDocid: seed.instructionNegatives[0]!.docid,
  status: 'accepted' as const,
  newInstruction: 'Only the instrument.',
  reason: null,
  backend: 'scripted',
  model: 'm',
  templateId: 't',
  templateVersion: '1',
  promptHash: 'h',
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  attempts: 1,
  createdAt: 'now',
});

describe('dual-view assembly', () => {
  it('builds the complement: positive D-, negatives D+ first, then the other negatives and hard negatives', () => {
    const seed = seeds[0]!; // bass: 1 positive, 2 instruction negatives, 1 hard negative
    const o = originalExample(seed, true);
    const c = complementExample(seed, rec(seed));
    expect(o.negatives.map((d) => d.docid)).toEqual(['bass-1-0', 'bass-2-0', 'hard-0']);
    expect(c.positives.map((d) => d.docid)).toEqual(['bass-1-0']);
    expect(c.negatives.map((d) => d.docid)).toEqual(['bass-0-0', 'bass-2-0', 'hard-0']);
    expect(c).toMatchObject({
      view: 'complement',
      originalId: o.id,
      pairId: o.pairId,
      instruction: 'Only the instrument.',
    });
    expect(o.instruction).toBe(seed.instruction.text);
  });
  it('puts the hard negatives mined around D- first in the complement when the seed lists them', () => {
    const base = seeds[0]!;
    const hard = ['h-pos', 'h-tgt', 'h-pos2', 'h-tgt2'].map((docid) => ({ docid, title: '', text: docid }));
    const seed = { ...base, hardNegatives: hard, metadata: { targetHardNegatives: ['h-tgt', 'h-tgt2'] } };
    expect(complementHardNegatives(seed).map((d) => d.docid)).toEqual(['h-tgt', 'h-tgt2', 'h-pos', 'h-pos2']);
    const c = complementExample(seed, rec(seed));
    expect(c.negatives.map((d) => d.docid)).toEqual([
      'bass-0-0',
      'bass-2-0',
      'h-tgt',
      'h-tgt2',
      'h-pos',
      'h-pos2',
    ]);
    // the original keeps the seed's order (mined around D+ first)
    expect(
      originalExample(seed, true)
        .negatives.map((d) => d.docid)
        .slice(2),
    ).toEqual(['h-pos', 'h-tgt', 'h-pos2', 'h-tgt2']);
  });
});

function world(nPairs: number, nUnpaired: number, nGeneral: number) {
  const originals: TrainingExample[] = [];
  const complements: DualViewExample[] = [];
  const mk = (id: string, view: 'original' | 'general', pairId?: string): TrainingExample => ({
    id,
    query: 'q',
    instruction: view === 'general' ? null : 'i',
    positives: [{ docid: `${id}-p`, title: '', text: 't' }],
    negatives: [{ docid: `${id}-n`, title: '', text: 'n' }],
    view,
    ...(pairId ? { pairId } : {}),
  });
  for (let i = 0; i < nPairs; i++) {
    originals.push(mk(`o${i}`, 'original', `pair:o${i}`));
    complements.push({
      ...mk(`o${i}::dv`, 'original'),
      view: 'complement',
      instruction: 'i2',
      pairId: `pair:o${i}`,
      originalId: `o${i}`,
      synthesisKey: 'k',
    });
  }
  for (let i = 0; i < nUnpaired; i++) originals.push(mk(`u${i}`, 'original'));
  const general = Array.from({ length: nGeneral }, (_, i) => mk(`g${i}`, 'general'));
  return { originals, complements, general };
}

describe('matched-budget mixes', () => {
  it('has the paper counts at every budget and nests the selections', () => {
    const m = buildMixes({ ...world(30, 20, 40), budget: 40, instructionExamples: 20, seed: 1 }) as Record<
      DataMix,
      MixExample[]
    >;
    expect(countMix(m['ins-orig'])).toEqual({ total: 40, original: 40, complement: 0, general: 0, pairs: 0 });
    expect(countMix(m['ins-dv'])).toEqual({ total: 40, original: 20, complement: 20, general: 0, pairs: 20 });
    expect(countMix(m['all-orig'])).toEqual({
      total: 40,
      original: 20,
      complement: 0,
      general: 20,
      pairs: 0,
    });
    expect(countMix(m['all-dv'])).toEqual({
      total: 40,
      original: 10,
      complement: 10,
      general: 20,
      pairs: 10,
    });
    const ids = (xs: { id: string; view: string }[], view: string) =>
      new Set(xs.filter((x) => x.view === view).map((x) => x.id));
    const insOrig = ids(m['ins-orig'], 'original');
    for (const id of ids(m['ins-dv'], 'original')) expect(insOrig.has(id)).toBe(true);
    const allOrig = ids(m['all-orig'], 'original');
    for (const id of ids(m['all-dv'], 'original')) expect(allOrig.has(id)).toBe(true);
    expect([...ids(m['all-orig'], 'general')].sort()).toEqual([...ids(m['all-dv'], 'general')].sort());
    // pairs stay adjacent
    const dv = m['ins-dv'];
    for (let i = 0; i < dv.length; i += 2) expect(dv[i]!.pairId).toBe(dv[i + 1]!.pairId);
    // deterministic
    expect(
      buildMixes({ ...world(30, 20, 40), budget: 40, instructionExamples: 20, seed: 1 })['all-dv']!.map(
        (e) => e.id,
      ),
    ).toEqual(m['all-dv'].map((e) => e.id));
  });
  it('control arms: the Ins-DV / All-DV topics, each original twice, and the paper mixes unchanged by asking for them', () => {
    const input = { ...world(30, 20, 40), budget: 40, instructionExamples: 20, seed: 1 };
    const paper = buildMixes(input) as Record<DataMix, MixExample[]>;
    const m = buildMixes({
      ...input,
      mixes: ['ins-orig', 'ins-dv', 'all-orig', 'all-dv', 'ins-orig-tm', 'all-orig-tm'],
    }) as Record<DataMix, MixExample[]>;
    for (const k of ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'] as const)
      expect(m[k].map((e) => e.id)).toEqual(paper[k].map((e) => e.id));
    expect(countMix(m['ins-orig-tm'])).toEqual({
      total: 40,
      original: 40,
      complement: 0,
      general: 0,
      pairs: 0,
    });
    expect(countMix(m['all-orig-tm'])).toEqual({
      total: 40,
      original: 20,
      complement: 0,
      general: 20,
      pairs: 0,
    });
    const base = (id: string) => id.replace(/#2$/, '');
    const topics = (xs: MixExample[]) =>
      new Set(xs.filter((x) => x.view !== 'general').map((x) => base(x.id)));
    // exactly Ins-DV's pair originals, each twice, under unique ids
    const dvOriginals = new Set(m['ins-dv'].filter((x) => x.view === 'original').map((x) => x.id));
    expect(topics(m['ins-orig-tm'])).toEqual(dvOriginals);
    expect(new Set(m['ins-orig-tm'].map((x) => x.id)).size).toBe(40);
    for (const id of dvOriginals) expect(m['ins-orig-tm'].filter((x) => base(x.id) === id)).toHaveLength(2);
    expect(m['ins-orig-tm'].every((x) => !x.pairId || !x.id.endsWith('#2'))).toBe(true);
    const allDvOriginals = new Set(m['all-dv'].filter((x) => x.view === 'original').map((x) => x.id));
    expect(topics(m['all-orig-tm'])).toEqual(allDvOriginals);
    expect([...m['all-orig-tm'].filter((x) => x.view === 'general').map((x) => x.id)].sort()).toEqual(
      [...m['all-dv'].filter((x) => x.view === 'general').map((x) => x.id)].sort(),
    );
  });
  it('refuses budgets the data cannot fill, with the numbers', () => {
    expect(() => buildMixes({ ...world(5, 50, 50), budget: 20 })).toThrow(
      /the matched mixes need N\/2 = 10 accepted pairs \(Ins-DV, .*\); the synthesis has 5: lower the budget to at most 10/,
    );
    expect(() => buildMixes({ ...world(30, 0, 5), budget: 20 })).toThrow(
      /All-\* need N - K = 10 general examples; there are 5/,
    );
    expect(() => buildMixes({ ...world(30, 0, 5), budget: 7 })).toThrow(DataError);
    // issue 12 item 7: a K the user never set is named as the default it is
    expect(() => buildMixes({ ...world(30, 0, 30), budget: 10 })).toThrow(/default K = N\/2 = 5 .* is odd/);
  });
});

describe('writeMixes and trainer exports', () => {
  it('writes every mix as training JSONL and in Tevatron / sentence-transformers / FlagEmbedding form', async () => {
    const synthDir = tempDir();
    await runSynthesis({
      seedsPath: writeSeeds(metadataSeeds(12)),
      outDir: synthDir,
      backend: createOfflineReverser(),
      template: templates['polarity-reversal'],
      model: 'offline-reverser',
      progressMode: 'silent',
    });
    const { general } = world(0, 0, 6);
    const generalPath = join(tempDir(), 'general.jsonl');
    await import('@dv/core').then((c) => c.writeJsonl(generalPath, general));
    const out = tempDir();
    const res = await writeMixes({
      synthDir,
      generalPath,
      outDir: out,
      budget: 12,
      instructionExamples: 6,
      formats: ['tevatron', 'sentence-transformers', 'flagembedding'],
    });
    expect(res['all-dv']).toMatchObject({ total: 12, original: 3, complement: 3, general: 6 });
    const read = (p: string) =>
      readFileSync(p, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const tev = read(res['ins-dv']!.files.tevatron!);
    expect(tev).toHaveLength(12);
    expect(Object.keys(tev[0]).sort()).toEqual([
      'negative_passages',
      'positive_passages',
      'query',
      'query_id',
    ]);
    const st = read(res['ins-dv']!.files['sentence-transformers']!);
    expect(Object.keys(st[0]).slice(0, 3)).toEqual(['anchor', 'positive', 'negative_1']);
    expect(new Set(st.map((r) => Object.keys(r).length)).size).toBe(1);
    const fe = read(res['ins-dv']!.files.flagembedding!);
    expect(fe[0]).toEqual({ query: expect.any(String), pos: [expect.any(String)], neg: expect.any(Array) });
    expect(JSON.parse(readFileSync(join(out, 'mixes.json'), 'utf8'))['ins-orig'].total).toBe(12);
  });
  it('formats queries with the one formatter (query, space, instruction)', () => {
    const ex = originalExample(seeds[0]!, false);
    expect(toTevatron(ex).query).toBe(`bass ${seeds[0]!.instruction.text}`);
    expect(toSentenceTransformers(ex, 1)).toEqual({
      anchor: `bass ${seeds[0]!.instruction.text}`,
      positive: `bass ${seeds[0]!.positives[0]!.text}`,
      negative_1: `bass ${seeds[0]!.instructionNegatives[0]!.text}`,
    });
  });
});
