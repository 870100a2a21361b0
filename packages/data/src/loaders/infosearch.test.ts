import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { loadInfoSearch, writeInfoSearch } from './infosearch.js';

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

function folder(): string {
  const dir = tmpDir('infosearch-');
  const files: Record<string, string> = {
    'corpus.jsonl': jsonl([
      { _id: 'p1', title: '', text: 'A one-sentence answer.' },
      { _id: 'p2', title: '', text: 'A long article. With many sentences. And more.' },
    ]),
    'queries.jsonl': jsonl([
      {
        _id: 'q1',
        text: 'what is rust',
        instruction_og: '',
        instruction_changed: 'Answer in one sentence.',
        instruction_reversed: 'Not in one sentence.',
      },
    ]),
    'qrels_og/test.tsv': 'query-id\tcorpus-id\tscore\nq1\tp1\t1\nq1\tp2\t1\n',
    'qrels_changed/test.tsv': 'query-id\tcorpus-id\tscore\nq1\tp1\t1\nq1\tp2\t0\n',
    'qrels_reversed/test.tsv': 'query-id\tcorpus-id\tscore\nq1\tp1\t0\nq1\tp2\t1\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('InfoSearch layout', () => {
  it('og is the bare query; changed = instructed; reversed; qrels per mode (TSV)', async () => {
    const set = await loadInfoSearch(folder(), { name: 'Length-v1' });
    expect(set.queries[0]!.instructions).toEqual({
      og: null,
      changed: 'Answer in one sentence.',
      reversed: 'Not in one sentence.',
    });
    expect(set.qrels.og!.get('q1')).toEqual(
      new Map([
        ['p1', 1],
        ['p2', 1],
      ]),
    );
    expect(set.qrels.changed!.get('q1')!.get('p2')).toBe(0);
    expect(set.qrels.reversed!.get('q1')!.get('p2')).toBe(1);
    expect(set.candidates).toBeUndefined();
  });

  it('round-trips through writeInfoSearch (JSONL)', async () => {
    const set = await loadInfoSearch(folder());
    const out = tmpDir('infosearch-out-');
    await writeInfoSearch(out, set);
    const again = await loadInfoSearch(out);
    expect(again.queries).toEqual(set.queries);
    expect(again.qrels).toEqual(set.qrels);
  });

  it('a TSV qrels row with a wrong column count names file and line', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'qrels_og/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\tp1\n');
    await expect(loadInfoSearch(dir)).rejects.toThrow(
      /qrels_og\/test\.tsv:2: expected 3 tab-separated columns, got 2/,
    );
  });
});
