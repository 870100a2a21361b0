import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { type ColumnKind, writeParquetFixture } from '../test-utils/parquet-fixture.js';
import { readPromptriever } from './promptriever.js';

const passage = { docid: 'string', title: 'string', text: 'string' } as const;
const COLUMNS: Record<string, ColumnKind> = {
  query_id: 'string',
  query: 'string',
  positive_passages: { struct: passage },
  negative_passages: { struct: passage },
  only_instruction: 'string',
  only_query: 'string',
  has_instruction: 'bool',
  new_negatives: {
    struct: { ...passage, explanation: 'string', followir_score: 'double', joint_id: 'string' },
  },
};

function row(id: string, extra: Record<string, unknown> = {}) {
  return {
    query_id: id,
    query: `volcano eruption ${id} Only explosive ones.`,
    positive_passages: [{ docid: `p${id}`, title: '', text: 'Plinian eruptions are explosive.' }],
    negative_passages: [
      { docid: `h${id}a`, title: 'T', text: 'Hard negative a.' },
      { docid: `h${id}b`, title: '', text: 'Hard negative b.' },
    ],
    only_instruction: 'Only explosive ones.',
    only_query: `volcano eruption ${id}`,
    has_instruction: true,
    new_negatives: [
      {
        docid: `n${id}`,
        title: '',
        text: 'Effusive eruptions.',
        explanation: 'not explosive',
        followir_score: 0.1,
        joint_id: `j${id}`,
      },
    ],
    ...extra,
  };
}

async function all(files: string | string[], opts = {}) {
  const out = [];
  for await (const s of readPromptriever(files, opts)) out.push(s);
  return out;
}

describe('Promptriever seed data', () => {
  it('streams parquet rows (several row groups) into SeedExamples, lossless for the fields used', async () => {
    const file = join(tmpDir('promptriever-'), 'train-00000-of-00010.parquet');
    writeParquetFixture(file, COLUMNS, [row('1'), row('2'), row('3')], 2);
    const seeds = await all(file, { revision: 'rev1' });
    expect(seeds.map((s) => s.id)).toEqual(['1', '2', '3']);
    const s = seeds[1]!;
    expect(s.query).toBe('volcano eruption 2');
    expect(s.instruction).toEqual({ text: 'Only explosive ones.' });
    expect(s.combinedQuery).toBe('volcano eruption 2 Only explosive ones.');
    expect(s.hasInstruction).toBe(true);
    expect(s.positives).toEqual([{ docid: 'p2', title: '', text: 'Plinian eruptions are explosive.' }]);
    expect(s.instructionNegatives).toEqual([
      {
        docid: 'n2',
        title: '',
        text: 'Effusive eruptions.',
        explanation: 'not explosive',
        followirScore: 0.1,
        jointId: 'j2',
      },
    ]);
    expect(s.hardNegatives.map((h) => h.docid)).toEqual(['h2a', 'h2b']);
    expect(s.source).toEqual({ dataset: 'samaya-ai/msmarco-w-instructions', revision: 'rev1', row: 2 });
  });

  it('reads JSONL rows the same way and honours limit', async () => {
    const file = join(tmpDir('promptriever-'), 'rows.jsonl');
    writeFileSync(file, `${[row('1'), row('2')].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const seeds = await all(file, { limit: 1 });
    expect(seeds).toHaveLength(1);
    expect(seeds[0]!.instructionNegatives[0]!.jointId).toBe('j1');
  });

  it('missing columns, empty positives and duplicate ids are errors naming the file', async () => {
    const dir = tmpDir('promptriever-');
    const noPos = join(dir, 'nopos.parquet');
    const { positive_passages: _p, ...cols } = COLUMNS;
    writeParquetFixture(noPos, cols, [row('1')]);
    await expect(all(noPos)).rejects.toThrow(/nopos\.parquet: missing columns: positive_passages/);
    const empty = join(dir, 'empty.parquet');
    writeParquetFixture(empty, COLUMNS, [row('1'), row('2', { positive_passages: [] })]);
    await expect(all(empty)).rejects.toThrow(
      /empty\.parquet:2: positives: a seed example needs at least one positive/,
    );
    const dup = join(dir, 'dup.parquet');
    writeParquetFixture(dup, COLUMNS, [row('1'), row('1')]);
    await expect(all(dup)).rejects.toThrow(/dup\.parquet:2: duplicate query_id "1"/);
  });
});
