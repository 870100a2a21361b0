import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { writeParquetFixture } from '../test-utils/parquet-fixture.js';
import { loadFollowIRv2 } from './followir-v2.js';

/** A tiny `-mteb` repo snapshot: one parquet file per config, as `<config>/test-00000-of-00001.parquet`. */
function repo(queryIds = ['307-og', '307-changed']): string {
  const dir = tmpDir('followir-v2-');
  const put = (
    config: string,
    cols: Parameters<typeof writeParquetFixture>[1],
    rows: Record<string, unknown>[],
  ) => {
    mkdirSync(join(dir, config), { recursive: true });
    writeParquetFixture(join(dir, config, 'test-00000-of-00001.parquet'), cols, rows);
  };
  put('corpus', { _id: 'string', title: 'string', text: 'string' }, [
    { _id: 'd1', title: 'Dams', text: 'cost' },
    { _id: 'd2', title: '', text: 'ecology' },
  ]);
  put(
    'queries',
    { _id: 'string', text: 'string' },
    queryIds.map((id) => ({ _id: id, text: 'Three Gorges' })),
  );
  put('instruction', { 'query-id': 'string', instruction: 'string' }, [
    { 'query-id': '307-og', instruction: 'Cost or ecology.' },
    { 'query-id': '307-changed', instruction: 'Cost only.' },
  ]);
  put('default', { 'query-id': 'string', 'corpus-id': 'string', score: 'int64' }, [
    { 'query-id': '307-og', 'corpus-id': 'd1', score: 1 },
    { 'query-id': '307-og', 'corpus-id': 'd2', score: 1 },
    { 'query-id': '307-changed', 'corpus-id': 'd1', score: 1 },
    { 'query-id': '307-changed', 'corpus-id': 'd2', score: 0 },
  ]);
  put('top_ranked', { 'query-id': 'string', 'corpus-ids': 'stringList' }, [
    { 'query-id': '307-og', 'corpus-ids': ['d2', 'd1'] },
    { 'query-id': '307-changed', 'corpus-ids': ['d2', 'd1'] },
  ]);
  return dir;
}

describe('FollowIR v2 (-mteb parquet) layout', () => {
  it('merges <id>-og / <id>-changed into one query with two modes and qrels per mode', async () => {
    const set = await loadFollowIRv2(repo(), { name: 'Robust04InstructionRetrieval' });
    expect(set.queries).toEqual([
      { id: '307', query: 'Three Gorges', instructions: { og: 'Cost or ecology.', changed: 'Cost only.' } },
    ]);
    expect(set.qrels.og!.get('307')).toEqual(
      new Map([
        ['d1', 1],
        ['d2', 1],
      ]),
    );
    expect(set.qrels.changed!.get('307')).toEqual(
      new Map([
        ['d1', 1],
        ['d2', 0],
      ]),
    );
    expect(set.candidates!.get('307')).toEqual(['d2', 'd1']);
    expect(set.corpus[0]).toEqual({ docid: 'd1', title: 'Dams', text: 'cost' });
  });

  // issue 22: mteb 2 evaluates mteb/<Task>InstructionRetrieval, whose queries carry the
  // instruction in a column (no instruction config) and whose qrels config is `qrels`
  it('reads the mteb/<Task>InstructionRetrieval form: instructions in the queries, qrels config', async () => {
    const dir = tmpDir('followir-mteb2-');
    const put = (
      config: string,
      cols: Parameters<typeof writeParquetFixture>[1],
      rows: Record<string, unknown>[],
    ) => {
      mkdirSync(join(dir, config), { recursive: true });
      writeParquetFixture(join(dir, config, 'test-00000-of-00001.parquet'), cols, rows);
    };
    put('corpus', { id: 'string', title: 'string', text: 'string' }, [
      { id: 'd1', title: 'Dams', text: 'cost' },
      { id: 'd2', title: '', text: 'ecology' },
    ]);
    put('queries', { id: 'string', text: 'string', instruction: 'string' }, [
      { id: '307-og', text: 'Three Gorges', instruction: 'Cost or ecology.' },
      { id: '307-changed', text: 'Three Gorges', instruction: 'Cost only.' },
    ]);
    put('qrels', { 'query-id': 'string', 'corpus-id': 'string', score: 'int64' }, [
      { 'query-id': '307-og', 'corpus-id': 'd2', score: 1 },
      { 'query-id': '307-changed', 'corpus-id': 'd2', score: 0 },
    ]);
    put('top_ranked', { 'query-id': 'string', 'corpus-ids': 'stringList' }, [
      { 'query-id': '307-og', 'corpus-ids': ['d1', 'd2'] },
    ]);
    const set = await loadFollowIRv2(dir, { name: 'Core17InstructionRetrieval', revision: 'r' });
    expect(set.queries).toEqual([
      { id: '307', query: 'Three Gorges', instructions: { og: 'Cost or ecology.', changed: 'Cost only.' } },
    ]);
    expect(set.qrels.changed!.get('307')).toEqual(new Map([['d2', 0]]));
    expect(set.candidates!.get('307')).toEqual(['d1', 'd2']);
  });

  it('rejects a query id without a mode suffix, naming the file and row', async () => {
    await expect(loadFollowIRv2(repo(['307-og', '307']))).rejects.toThrow(
      /queries\/test-00000-of-00001\.parquet:2: query id "307" does not end in -og or -changed/,
    );
  });
});
