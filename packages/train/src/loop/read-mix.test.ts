import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMixUnits } from './read-mix.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-read-mix-'));
const doc = (id: string) => ({ docid: id, title: '', text: `text ${id}` });
const ex = (id: string, view: string, pairId?: string) => ({
  id,
  query: 'q',
  instruction: view === 'general' ? null : 'i',
  positives: [doc(`${id}+`)],
  negatives: [doc(`${id}-1`), doc(`${id}-2`), doc(`${id}-3`)],
  view,
  ...(pairId ? { pairId } : {}),
});
async function units(lines: unknown[], options = {}) {
  const path = join(dir, `m${Math.random()}.jsonl`);
  writeFileSync(path, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  const out: string[][] = [];
  for await (const u of readMixUnits(path, options)) out.push(u.map((e) => e.id));
  return { out, path };
}

describe('readMixUnits', () => {
  it('groups the two views of a pair (original first), even apart; singles pass through', async () => {
    const { out } = await units([
      ex('c1', 'complement', 'p1'),
      ex('g1', 'general'),
      ex('o1', 'original', 'p1'),
      ex('o2', 'original', 'p2'),
      ex('c2', 'complement', 'p2'),
      ex('o3', 'original', 'p3'),
    ]);
    expect(out).toEqual([['g1'], ['o1', 'c1'], ['o2', 'c2'], ['o3']]);
  });

  it('bounds the views waiting for a partner; trims negatives on read', async () => {
    const { out } = await units(
      [
        ex('o1', 'original', 'p1'),
        ex('o2', 'original', 'p2'),
        ex('o3', 'original', 'p3'),
        ex('c3', 'complement', 'p3'),
      ],
      { maxPending: 1 },
    );
    expect(out).toEqual([['o1'], ['o2'], ['o3', 'c3']]);
    const path = join(dir, 'trim.jsonl');
    writeFileSync(path, `${JSON.stringify(ex('g', 'general'))}\n`);
    for await (const [e] of readMixUnits(path, { keepNegatives: 1 }))
      expect(e!.negatives.map((n) => n.docid)).toEqual(['g-1']);
  });

  it('reads Tevatron / Promptriever rows (instruction negatives first)', async () => {
    const path = join(dir, 'tev.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({
        query_id: '7',
        query: 'bass',
        instruction: 'Only fish.',
        positive_passages: [doc('fish')],
        negative_passages: [doc('hard')],
        new_negatives: [doc('voice')],
      })}\n`,
    );
    for await (const [e] of readMixUnits(path)) {
      expect(e).toMatchObject({ id: '7', query: 'bass', instruction: 'Only fish.', view: 'original' });
      expect(e!.negatives.map((n) => n.docid)).toEqual(['voice', 'hard']);
    }
  });

  it('reads sentence-transformers n-tuples (anchor, positive, negative_1..k)', async () => {
    const path = join(dir, 'st.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ anchor: 'bass Only fish.', positive: 'fish text', negative_2: 'b', negative_1: 'a' })}\n`,
    );
    for await (const [e] of readMixUnits(path)) {
      expect(e).toMatchObject({ id: 'line-1', query: 'bass Only fish.', instruction: null });
      expect(e!.positives[0]!.text).toBe('fish text');
      expect(e!.negatives.map((n) => n.text)).toEqual(['a', 'b']);
      expect(e!.negatives[0]!.docid).toMatch(/^sha256:[0-9a-f]{16}$/);
    }
  });

  it('a bad row is an error naming file:line', async () => {
    await expect(units([ex('a', 'general'), '{"id": "b",'])).rejects.toThrow(
      /m[\d.]+\.jsonl:2: invalid JSON/,
    );
    await expect(units([ex('a', 'general'), { ...ex('b', 'general'), positives: [] }])).rejects.toThrow(
      /:2: positives: a training example needs at least one positive/,
    );
  });

  // issue 25: a repeated id (a mix concatenated twice, a pair written twice) was trained on twice
  it('a duplicate example id is an error naming the second occurrence (file:line) and the first', async () => {
    const path = join(dir, 'dup.jsonl');
    writeFileSync(
      path,
      `${[ex('o1', 'original', 'p1'), ex('c1', 'complement', 'p1'), ex('g1', 'general'), ex('o1', 'original', 'p9')].map((r) => JSON.stringify(r)).join('\n')}\n`,
    );
    const read = async () => {
      for await (const _ of readMixUnits(path));
    };
    await expect(read()).rejects.toThrow(
      `${path}:4: duplicate example id "o1" (first on line 1); ids in a mix are unique`,
    );
    // sentence-transformers rows carry no id: each is its line's, never a duplicate
    const st = join(dir, 'st-dup.jsonl');
    writeFileSync(st, `${JSON.stringify({ anchor: 'q', positive: 'p' })}\n`.repeat(2));
    const got: string[] = [];
    for await (const u of readMixUnits(st)) got.push(u[0]!.id);
    expect(got).toEqual(['line-1', 'line-2']);
  });
});
