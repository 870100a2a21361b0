import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DualViewExample,
  EvaluationResult,
  FormatterSettings,
  Passage,
  RunConfig,
  RunManifest,
  SeedExample,
  SynthesisRecord,
  SynthesisRequest,
  TrainingExample,
} from './index.js';
import { BenchmarkDefinition } from './schemas/benchmark.js';
import { Qrel, RunEntry } from './schemas/qrels.js';
import { Query } from './schemas/query.js';

const passage = { docid: 'd1', title: 'Bass', text: 'A freshwater fish.' };

/** A real-shaped Promptriever `msmarco-w-instructions` row, mapped the way @dv/data maps it. */
const promptrieverRow = {
  query_id: '1185869',
  query: ')what was the immediate impact of the success of the manhattan project? Focus on civilian energy.',
  only_query: ')what was the immediate impact of the success of the manhattan project?',
  only_instruction: 'Focus on civilian energy.',
  has_instruction: true,
  positive_passages: [
    { docid: '0', title: '', text: 'The presence of communication amid scientific minds...' },
  ],
  negative_passages: [
    { docid: '2942565', title: '', text: 'Manhattan Project. The Manhattan Project was...' },
  ],
  new_negatives: [
    {
      docid: 'nn1',
      title: '',
      text: 'Bomb yields...',
      explanation: 'military, not civilian',
      followir_score: 0,
      joint_id: 'j1',
    },
  ],
};

describe('schemas: valid examples parse, invalid ones are refused with a path', () => {
  it('Passage fills the empty title and refuses an empty docid', () => {
    expect(Passage.parse({ docid: 'x', text: 't' })).toEqual({ docid: 'x', title: '', text: 't' });
    const r = Passage.safeParse({ docid: '', text: 't' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['docid']);
    expect(Passage.safeParse({ docid: 'x' }).success).toBe(false);
  });

  it('Query and Instruction keep the lever', () => {
    const q = Query.parse({ id: 'q1', text: 'bass', instruction: { text: 'Only fish.', lever: 'category' } });
    expect(q.instruction?.lever).toBe('category');
    expect(
      Query.safeParse({ id: 'q1', text: 'bass', instruction: { text: 'x', lever: 'nonsense' } }).success,
    ).toBe(false);
  });

  it('SeedExample represents a Promptriever row losslessly', () => {
    const r = promptrieverRow;
    const seed = SeedExample.parse({
      id: r.query_id,
      query: r.only_query,
      instruction: { text: r.only_instruction },
      combinedQuery: r.query,
      hasInstruction: r.has_instruction,
      positives: r.positive_passages,
      instructionNegatives: r.new_negatives.map((n) => ({
        docid: n.docid,
        title: n.title,
        text: n.text,
        explanation: n.explanation,
        followirScore: n.followir_score,
        jointId: n.joint_id,
      })),
      hardNegatives: r.negative_passages,
    });
    // Round trip back to the row's fields.
    expect(seed.combinedQuery).toBe(r.query);
    expect(seed.query).toBe(r.only_query);
    expect(seed.instruction.text).toBe(r.only_instruction);
    expect(seed.positives[0]).toEqual(r.positive_passages[0]);
    expect(seed.instructionNegatives[0]?.explanation).toBe('military, not civilian');
    expect(seed.instructionNegatives[0]?.jointId).toBe('j1');
    expect(seed.hardNegatives).toEqual(r.negative_passages);
  });

  it('SeedExample refuses a seed without positives or with an empty query', () => {
    expect(
      SeedExample.safeParse({ id: 's', query: 'q', instruction: { text: 'i' }, positives: [] }).success,
    ).toBe(false);
    expect(
      SeedExample.safeParse({ id: 's', query: '', instruction: { text: 'i' }, positives: [passage] }).success,
    ).toBe(false);
  });

  const baseRecord = {
    key: 'k1',
    seedId: 's1',
    negativeDocid: 'd2',
    status: 'accepted',
    newInstruction: 'Only musical instruments.',
    backend: 'offline',
    model: 'offline-reverser',
    templateId: 'polarity-reversal',
    templateVersion: '1',
    promptHash: 'abc',
    createdAt: '2026-01-01T00:00:00Z',
  };

  it('SynthesisRecord: accepted needs an instruction, others need a reason', () => {
    expect(SynthesisRecord.parse(baseRecord).usage.totalTokens).toBe(0);
    expect(SynthesisRecord.safeParse({ ...baseRecord, newInstruction: null }).success).toBe(false);
    expect(SynthesisRecord.safeParse({ ...baseRecord, status: 'none', newInstruction: null }).success).toBe(
      false,
    );
    expect(
      SynthesisRecord.parse({
        ...baseRecord,
        status: 'none',
        newInstruction: null,
        reason: 'model said None',
      }).status,
    ).toBe('none');
    expect(SynthesisRecord.safeParse({ ...baseRecord, status: 'maybe' }).success).toBe(false);
  });

  it('SynthesisRequest needs at least one message', () => {
    const req = {
      key: 'k',
      seedId: 's',
      negativeDocid: 'd',
      templateId: 't',
      templateVersion: '1',
      promptHash: 'h',
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(SynthesisRequest.parse(req).messages).toHaveLength(1);
    expect(SynthesisRequest.safeParse({ ...req, messages: [] }).success).toBe(false);
    expect(SynthesisRequest.safeParse({ ...req, messages: [{ role: 'tool', content: 'x' }] }).success).toBe(
      false,
    );
  });

  it('TrainingExample and DualViewExample', () => {
    const ex = { id: 'e1', query: 'bass', instruction: 'Only fish.', positives: [passage], view: 'original' };
    expect(TrainingExample.parse(ex).negatives).toEqual([]);
    expect(TrainingExample.safeParse({ ...ex, positives: [] }).success).toBe(false);
    expect(TrainingExample.parse({ ...ex, instruction: null, view: 'general' }).instruction).toBeNull();
    const dv = { ...ex, id: 'e1~c', view: 'complement', originalId: 'e1', synthesisKey: 'k1' };
    expect(DualViewExample.parse(dv).originalId).toBe('e1');
    expect(DualViewExample.safeParse({ ...dv, view: 'original' }).success).toBe(false);
    expect(DualViewExample.safeParse({ ...dv, instruction: null }).success).toBe(false);
  });

  it('Qrel and RunEntry', () => {
    expect(Qrel.parse({ qid: '1', docid: 'a', grade: 2 }).grade).toBe(2);
    expect(Qrel.safeParse({ qid: '1', docid: 'a', grade: 1.5 }).success).toBe(false);
    expect(RunEntry.parse({ qid: '1', docid: 'a', score: -3.5 }).score).toBe(-3.5);
    expect(RunEntry.safeParse({ qid: '1', docid: 'a', score: Number.NaN }).success).toBe(false);
  });

  it('BenchmarkDefinition', () => {
    const def = {
      name: 'followir',
      kind: 'followir',
      datasets: [
        {
          name: 'Robust04InstructionRetrieval',
          source: {
            type: 'hub',
            repo: 'jhu-clsp/robust04-instructions',
            revision: 'abc',
            layout: 'followir-v1',
          },
          mainMetric: 'map_cut.1000',
          task: 'rerank',
        },
      ],
    };
    expect(BenchmarkDefinition.parse(def).datasets[0]?.topK).toBe(1000);
    expect(BenchmarkDefinition.safeParse({ ...def, datasets: [] }).success).toBe(false);
  });

  it('EvaluationResult', () => {
    const r = {
      benchmark: 'b',
      dataset: 'd',
      model: 'm',
      mainMetric: 'p_mrr',
      mainScore: 0.1,
      scores: { p_mrr: 0.1 },
      numQueries: 3,
    };
    expect(EvaluationResult.parse(r).split).toBe('test');
    expect(EvaluationResult.safeParse({ ...r, numQueries: -1 }).success).toBe(false);
  });

  it('RunManifest refuses a bad digest', () => {
    const m = {
      schemaVersion: 1,
      kind: 'eval',
      createdAt: 'now',
      gitCommit: null,
      gitDirty: null,
      node: 'v20',
      platform: 'linux',
      packages: {},
      config: {},
    };
    expect(RunManifest.parse(m).seeds).toEqual([]);
    expect(RunManifest.safeParse({ ...m, inputs: [{ path: 'a', sha256: 'xyz', bytes: 1 }] }).success).toBe(
      false,
    );
    expect(RunManifest.safeParse({ ...m, schemaVersion: 2 }).success).toBe(false);
  });

  it('FormatterSettings defaults follow mteb', () => {
    expect(FormatterSettings.parse({})).toEqual({
      queryPrefix: '',
      documentPrefix: '',
      joiner: ' ',
      instructionFirst: false,
      titleJoiner: ' ',
    });
  });

  it('RunConfig refuses a non-positive temperature, an unknown mix and missing concerns', async () => {
    const { miniPreset } = await import('./presets.js');
    const ok = miniPreset.config;
    expect(RunConfig.safeParse(ok).success).toBe(true);
    expect(
      RunConfig.safeParse({ ...ok, train: { ...ok.train, loss: { ...ok.train.loss, temperature: 0 } } })
        .success,
    ).toBe(false);
    // the mix is per stage now (every mix is trained): the mix names are DataMix's
    const { DataMix } = await import('./index.js');
    expect(DataMix.safeParse('ins-mixed').success).toBe(false);
    expect(RunConfig.safeParse({ profile: 'mini' }).success).toBe(false);
  });

  it('types are inferred from the schemas', () => {
    expectTypeOf<SeedExample['positives'][number]>().toEqualTypeOf<Passage>();
    expectTypeOf<SynthesisRecord['newInstruction']>().toEqualTypeOf<string | null>();
  });
});

describe('InstructedQuery', () => {
  it('keeps instructions per mode, null meaning the bare query', async () => {
    const { InstructedQuery } = await import('./index.js');
    const q = InstructedQuery.parse({
      id: '1',
      query: 'bass',
      instructions: { og: null, changed: 'Only fish.' },
    });
    expect(q.instructions.og).toBeNull();
    expect(q.instructions.reversed).toBeUndefined();
    expect(
      InstructedQuery.safeParse({ id: '1', query: 'bass', instructions: { sideways: 'x' } }).success,
    ).toBe(false);
  });
});

describe('DocAttributes', () => {
  it('accepts WordNet-style attributes, keeps unknown keys, refuses wrong types', async () => {
    const { DocAttributes } = await import('./index.js');
    const a = DocAttributes.parse({
      category: 'noun.animal',
      hypernyms: ['fish'],
      senseRank: 1,
      textHypernyms: ['fish'],
    });
    expect(a.category).toBe('noun.animal');
    expect((a as Record<string, unknown>).textHypernyms).toEqual(['fish']);
    expect(DocAttributes.parse({})).toEqual({});
    expect(DocAttributes.safeParse({ senseRank: 0 }).success).toBe(false);
    expect(DocAttributes.safeParse({ hypernyms: 'fish' }).success).toBe(false);
  });
});
