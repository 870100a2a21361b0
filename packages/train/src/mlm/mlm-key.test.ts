/**
 * The MLM run folder's key (issue 25): core's keyed-resume contract with the code digest of what
 * MLM pretraining runs (`MLM_CODE`). A folder made by other code is refused naming the changed
 * part; the same code is a cache hit. The code part is injected (`code`), the real src untouched.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCodeDigestMemo, codeDigest, MlmConfig } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { MLM_CODE, mlmKey, pretrainMlm } from './pretrain-mlm.js';

const CONFIG = {
  layers: 1,
  hidden: 64,
  vocabSize: 50,
  maxLength: 8,
  batchSize: 4,
  steps: 2,
  optimizer: { lr: 1e-3 },
};

function corpusFile(dir: string): string {
  const corpus = join(dir, 'corpus.txt');
  writeFileSync(corpus, Array.from({ length: 20 }, (_, i) => `the cat ${i % 5} sat on the mat`).join('\n'));
  return corpus;
}

describe('mlmKey', () => {
  it('holds kind, config, corpus sha256 and the code digest of MLM_CODE', async () => {
    const corpus = corpusFile(tmpDir('mlm-key-'));
    const key = await mlmKey(MlmConfig.parse(CONFIG), [corpus]);
    expect(key.parts.kind).toBe('mlm-run');
    expect(Object.keys(key.parts.inputs)).toEqual(['corpus.0']);
    clearCodeDigestMemo();
    expect(key.parts.code).toEqual({ '@dv/train:mlm': codeDigest(MLM_CODE, import.meta.url).digest });
    // the checkpoint cadence changes no result, so not the key
    const other = await mlmKey(MlmConfig.parse({ ...CONFIG, checkpoint: { everySteps: 7 } }), [corpus]);
    expect(other.key).toBe(key.key);
    const changed = await mlmKey(MlmConfig.parse(CONFIG), [corpus], undefined, { '@dv/train:mlm': 'x' });
    expect(changed.key).not.toBe(key.key);
  });

  it('a run folder made by other code is refused naming why; the same code is a hit', async () => {
    await initBackend();
    const dir = tmpDir('mlm-code-');
    const corpus = corpusFile(dir);
    const out = join(dir, 'run');
    const codeA = { '@dv/train:mlm': 'a'.repeat(64) };
    const first = await pretrainMlm({ config: CONFIG, corpus, out, code: codeA });
    expect(first.cached).toBe(false);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.keyParts).toMatchObject({ kind: 'mlm-run', code: codeA });
    const hit = await pretrainMlm({ config: CONFIG, corpus, out, code: codeA });
    expect(hit).toMatchObject({ cached: true, digest: first.digest });
    await expect(
      pretrainMlm({ config: CONFIG, corpus, out, code: { '@dv/train:mlm': 'b'.repeat(64) } }),
    ).rejects.toThrow(/made by other code, config or corpus \(code of @dv\/train:mlm changed\)/);
    // a summary written before key parts were recorded says so
    writeFileSync(
      join(out, 'summary.json'),
      JSON.stringify({ ...summary, keyParts: undefined, digest: 'old' }),
    );
    await expect(pretrainMlm({ config: CONFIG, corpus, out, code: codeA })).rejects.toThrow(
      /made before code digests were recorded/,
    );
  }, 30_000);
});
