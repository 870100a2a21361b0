import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonlAll, SynthesisRecord } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { BatchRequestLine, createBatchResultsBackend, exportBatch } from './batch-files.js';
import { runSynthesis } from './run-synthesis.js';
import { templates } from './template-registry.js';
import { plainSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';

const settings = {
  template: templates['polarity-reversal'],
  model: 'qwen',
  temperature: 0.7,
  maxTokens: 256,
};

describe('batch files', () => {
  it('exports OpenAI Batch JSONL and imports the output matched by custom_id', async () => {
    const seedsPath = writeSeeds(plainSeeds(4));
    const outDir = tempDir();
    const ex = await exportBatch({ seedsPath, outDir, ...settings });
    expect(ex).toMatchObject({ requests: 4, skipped: 0 });
    const lines = readFileSync(ex.files[0]!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => BatchRequestLine.parse(JSON.parse(l)));
    expect(lines[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'qwen', temperature: 0.7, max_tokens: 256 },
    });
    expect(lines[0]!.body.messages[1]!.content).toContain('<query>how long to boil eggs</query>');

    // An output file as the Batch API writes it: out of order, one error line, one missing.
    const ok = (id: string, content: string) => ({
      id: `batch_req_${id.slice(0, 6)}`,
      custom_id: id,
      response: {
        status_code: 200,
        request_id: 'r',
        body: {
          choices: [{ message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        },
      },
      error: null,
    });
    const out = [
      ok(
        lines[2]!.custom_id,
        '<answer><new_instruction>High mountain cooking only.</new_instruction></answer>',
      ),
      ok(lines[0]!.custom_id, 'Too hard. <answer>None</answer>'),
      {
        id: 'batch_req_x',
        custom_id: lines[1]!.custom_id,
        response: null,
        error: { code: 'server_error', message: 'boom' },
      },
      ok('not-a-known-key', '<answer>None</answer>'),
    ];
    const outPath = join(outDir, 'batch-output.jsonl');
    writeFileSync(outPath, `${out.map((o) => JSON.stringify(o)).join('\n')}\n`);
    const backend = await createBatchResultsBackend([outPath], 'qwen');
    const s = await runSynthesis({ seedsPath, outDir, backend, progressMode: 'silent', ...settings });
    expect(s).toMatchObject({ seeds: 4, recorded: 3, pending: 1, accepted: 1, none: 1, failed: 1 });
    expect(s.byReason['backend:batch:server_error']).toBe(1);
    expect(s.tokens.totalTokens).toBe(240);
    expect(backend.unmatchedIds()).toEqual(['not-a-known-key']);
    const recs = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    expect(recs.find((r) => r.status === 'accepted')!.key).toBe(lines[2]!.custom_id);

    // Re-export: only the seed with no record is asked again (and the failure with --retry-failed).
    expect((await exportBatch({ seedsPath, outDir, ...settings })).requests).toBe(1);
    expect((await exportBatch({ seedsPath, outDir, retryFailed: true, ...settings })).requests).toBe(2);
  });

  it('splits large exports into parts', async () => {
    const outDir = tempDir();
    const ex = await exportBatch({
      seedsPath: writeSeeds(plainSeeds(5)),
      outDir,
      maxPerFile: 2,
      ...settings,
    });
    expect(ex.files.map((f) => f.slice(outDir.length + 1))).toEqual([
      'batch-input.000.jsonl',
      'batch-input.001.jsonl',
      'batch-input.002.jsonl',
    ]);
  });

  it('rejects an output file with a duplicated custom_id, naming the line', async () => {
    const dir = tempDir();
    const p = join(dir, 'out.jsonl');
    const line = JSON.stringify({ custom_id: 'k', response: null, error: { code: 'x' } });
    writeFileSync(p, `${line}\n${line}\n`);
    await expect(createBatchResultsBackend([p], 'm')).rejects.toThrow(
      /out\.jsonl:2: duplicate custom_id "k"/,
    );
  });
});
