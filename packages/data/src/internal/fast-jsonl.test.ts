import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { lineWithPassages, PassageJson, writeLines } from './fast-jsonl.js';

describe('fast JSONL', () => {
  it('a line with spliced passage lists parses back to the same record', () => {
    const json = new PassageJson();
    const p = { docid: 'n1', title: 'bass', text: 'a fish', metadata: { category: 'noun.animal' } };
    const q = { docid: 'n2', title: '', text: 'x "quoted"' };
    const rec = { id: 's1', query: 'bass', positives: [p], hardNegatives: [q, p], extra: { a: 1 } };
    const line = lineWithPassages(rec, ['positives', 'hardNegatives'], json);
    expect(line.endsWith('}\n')).toBe(true);
    expect(JSON.parse(line)).toEqual(rec);
    expect(JSON.parse(lineWithPassages({ positives: [p] }, ['positives'], json))).toEqual({ positives: [p] });
  });

  it('writes all lines, across chunk boundaries', async () => {
    const path = join(tmpDir('fast-jsonl-'), 'x.jsonl');
    const lines = Array.from({ length: 3000 }, (_, i) => `${JSON.stringify({ i, pad: 'x'.repeat(500) })}\n`);
    expect(await writeLines(path, lines)).toBe(3000);
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });
});
