import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataExternalDir, tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { loadBeirFolder } from './beir-folder.js';

const msmarco = dataExternalDir('the msmarco_filtered check', 'instructir-kaistai', 'msmarco_filtered');

describe('BEIR folder', () => {
  it('reads corpus, queries and qrels/test.tsv; drops queries without qrels', async () => {
    const dir = tmpDir('beir-');
    mkdirSync(join(dir, 'qrels'));
    writeFileSync(
      join(dir, 'corpus.jsonl'),
      '{"_id":"1","title":"","text":"a"}\n{"_id":"2","title":"T","text":"b"}\n',
    );
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"x"}\n{"_id":"q2","text":"y"}\n');
    writeFileSync(join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\t2\t1\n');
    const set = await loadBeirFolder(dir);
    expect(set.queries).toEqual([{ id: 'q1', query: 'x', instructions: { og: null } }]);
    expect(set.qrels.og).toEqual(new Map([['q1', new Map([['2', 1]])]]));
    expect(set.corpus[1]).toEqual({ docid: '2', title: 'T', text: 'b' });
  });

  it('a qrel naming an unknown query is an error naming the file', async () => {
    const dir = tmpDir('beir-');
    mkdirSync(join(dir, 'qrels'));
    writeFileSync(join(dir, 'corpus.jsonl'), '{"_id":"1","text":"a"}\n');
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"x"}\n');
    writeFileSync(join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq9\t1\t1\n');
    await expect(loadBeirFolder(dir)).rejects.toThrow(/qrels\/test\.tsv:2: qrel names unknown query "q9"/);
  });

  it.skipIf(!msmarco)(
    'reads the real InstructIR msmarco_filtered folder (1,743 queries, one positive each)',
    async () => {
      const set = await loadBeirFolder(msmarco!, { name: 'msmarco_filtered' });
      expect(set.corpus).toHaveLength(1743);
      expect(set.queries).toHaveLength(1743);
      for (const q of set.queries) {
        const rel = [...set.qrels.og!.get(q.id)!.values()].filter((g) => g > 0);
        expect(rel).toHaveLength(1);
      }
    },
  );
});
