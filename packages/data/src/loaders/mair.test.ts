import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { loadMairTask } from './mair.js';

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

function task(labels: Array<{ id: string; score: number }>) {
  const dir = tmpDir('mair-');
  mkdirSync(join(dir, 'MAIR-Queries/CliniDS_2016'), { recursive: true });
  mkdirSync(join(dir, 'MAIR-Docs/CliniDS_2016'), { recursive: true });
  const queries = join(dir, 'MAIR-Queries/CliniDS_2016/queries.jsonl');
  const docs = join(dir, 'MAIR-Docs/CliniDS_2016/docs.jsonl');
  writeFileSync(
    queries,
    jsonl([{ qid: 'q1', instruction: 'Find case reports.', query: 'chest pain', labels }]),
  );
  writeFileSync(
    docs,
    jsonl([
      { id: 'a', doc: 'Case report one.' },
      { id: 'b', doc: 'Review.' },
    ]),
  );
  return { queries: [queries], docs: [docs] };
}

describe('MAIR task', () => {
  it('queries with their task instruction (og), docs, qrels from labels', async () => {
    const set = await loadMairTask(task([{ id: 'a', score: 1 }]), { name: 'CliniDS_2016' });
    expect(set.queries).toEqual([
      { id: 'q1', query: 'chest pain', instructions: { og: 'Find case reports.' } },
    ]);
    expect(set.corpus).toEqual([
      { docid: 'a', title: '', text: 'Case report one.' },
      { docid: 'b', title: '', text: 'Review.' },
    ]);
    expect(set.qrels.og!.get('q1')).toEqual(new Map([['a', 1]]));
  });

  it('a label naming an unknown document is an error naming the file', async () => {
    await expect(loadMairTask(task([{ id: 'zz', score: 1 }]))).rejects.toThrow(
      /queries\.jsonl:1: label names unknown document "zz"/,
    );
  });
});
