import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { loadFollowIRv1, writeFollowIRv1 } from './followir-v1.js';

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** A tiny folder in FollowIR v1's layout (as on the Hub: jhu-clsp/<name>-instructions). */
function folder(overrides: Record<string, string | null> = {}): string {
  const dir = tmpDir('followir-v1-');
  const files: Record<string, string | null> = {
    'corpus.jsonl': jsonl([
      { _id: 'd1', title: 'Dams', text: 'Three Gorges cost.' },
      { _id: 'd2', title: '', text: 'Three Gorges ecology.' },
      { _id: 'd3', title: 'Other', text: 'Unrelated.' },
    ]),
    'queries.jsonl': jsonl([
      {
        _id: '307',
        text: 'Three Gorges',
        instruction_og: 'Cost or ecology.',
        instruction_changed: 'Cost only.',
        keywords: 'x',
      },
      { _id: 310, text: 'Radio waves', instruction_og: 'Any.', instruction_changed: 'Brain only.' },
    ]),
    'qrels_og/test.jsonl': jsonl([
      { 'query-id': '307', 'corpus-id': 'd1', score: 2 },
      { 'query-id': '307', 'corpus-id': 'd2', score: 1 },
      { 'query-id': '310', 'corpus-id': 'd3', score: 0 },
    ]),
    'qrels_changed/test.jsonl': jsonl([
      { 'query-id': '307', 'corpus-id': 'd1', score: 2 },
      { 'query-id': '307', 'corpus-id': 'd2', score: 0 },
    ]),
    'top_ranked.jsonl': jsonl([
      { qid: '307', pid: 'd2' },
      { qid: '307', pid: 'd1' },
      { qid: '310', pid: ['d3', 'd1'] },
    ]),
    ...overrides,
  };
  for (const [name, text] of Object.entries(files)) {
    if (text === null) continue;
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('FollowIR v1 layout', () => {
  it('loads corpus, og/changed instructions and qrels, candidates in file order', async () => {
    const set = await loadFollowIRv1(folder(), { name: 'Tiny', revision: 'abc' });
    expect(set.name).toBe('Tiny');
    expect(set.revision).toBe('abc');
    expect(set.corpus.map((d) => d.docid)).toEqual(['d1', 'd2', 'd3']);
    expect(set.queries[0]).toEqual({
      id: '307',
      query: 'Three Gorges',
      instructions: { og: 'Cost or ecology.', changed: 'Cost only.' },
      metadata: { keywords: 'x' },
    });
    expect(set.queries[1]!.id).toBe('310');
    expect(set.qrels.og!.get('307')).toEqual(
      new Map([
        ['d1', 2],
        ['d2', 1],
      ]),
    );
    expect(set.qrels.changed!.get('307')!.get('d2')).toBe(0);
    expect(set.candidates!.get('307')).toEqual(['d2', 'd1']);
    expect(set.candidates!.get('310')).toEqual(['d3', 'd1']);
  });

  it('round-trips through writeFollowIRv1', async () => {
    const set = await loadFollowIRv1(folder());
    const out = tmpDir('followir-v1-out-');
    await writeFollowIRv1(out, set);
    const again = await loadFollowIRv1(out);
    expect(again.queries).toEqual(set.queries);
    expect(again.qrels).toEqual(set.qrels);
    expect(again.candidates).toEqual(set.candidates);
    expect(again.corpus).toEqual(set.corpus);
  });

  const bad: Array<[string, Record<string, string | null>, RegExp]> = [
    ['a missing qrels folder', { 'qrels_changed/test.jsonl': null }, /qrels_changed: missing test/],
    [
      'a query row without instruction_changed',
      { 'queries.jsonl': jsonl([{ _id: '307', text: 'q', instruction_og: 'x' }]) },
      /queries\.jsonl:1: instruction_changed:/,
    ],
    [
      'a duplicate document id',
      {
        'corpus.jsonl': jsonl([
          { _id: 'd1', text: 'a' },
          { _id: 'd2', text: 'b' },
          { _id: 'd3', text: 'c' },
          { _id: 'd1', text: 'd' },
        ]),
      },
      /corpus\.jsonl:4: duplicate document id "d1"/,
    ],
    [
      'a qrel naming an unknown document',
      { 'qrels_og/test.jsonl': jsonl([{ 'query-id': '307', 'corpus-id': 'd9', score: 1 }]) },
      /qrels_og\/test\.jsonl:1: qrel names unknown document "d9"/,
    ],
    [
      'a candidate naming an unknown query',
      { 'top_ranked.jsonl': jsonl([{ qid: '999', pid: 'd1' }]) },
      /top_ranked\.jsonl:1: top_ranked names unknown query "999"/,
    ],
  ];
  for (const [what, overrides, message] of bad) {
    it(`rejects ${what} with a DataError naming the file`, async () => {
      const dir = folder(overrides);
      await expect(loadFollowIRv1(dir)).rejects.toThrow(DataError);
      await expect(loadFollowIRv1(dir)).rejects.toThrow(message);
      rmSync(dir, { recursive: true, force: true });
    });
  }
});
