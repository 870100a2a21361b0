import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlAppender, redactSecrets, redactText, writeJsonl, writeManifest } from './index.js';
import { REDACTED } from './redact.js';
import { tmpDir } from './test-utils/tmp.js';

describe('secret redaction', () => {
  const secrets = ['super-secret-value-123'];
  it('redacts members whose key names a secret, but keeps variable names and token counts', () => {
    const out = redactSecrets(
      {
        apiKey: 'abc',
        headers: { Authorization: 'x' },
        apiKeyEnv: 'OPENAI_API_KEY',
        maxTokens: 5,
        hf_token: 'y',
      },
      secrets,
    );
    expect(out).toEqual({
      apiKey: REDACTED,
      headers: { Authorization: REDACTED },
      apiKeyEnv: 'OPENAI_API_KEY',
      maxTokens: 5,
      hf_token: REDACTED,
    });
  });
  it('redacts configured secret values anywhere in text, and nothing by word shape', () => {
    expect(redactText('url?k=super-secret-value-123&x', secrets)).toBe(`url?k=${REDACTED}&x`);
    expect(redactText('plain text about bass', secrets)).toBe('plain text about bass');
    // issue 12 item 2: shapes are data, not secrets.
    expect(redactText('Bearer instruments are securities payable to the holder', secrets)).toBe(
      'Bearer instruments are securities payable to the holder',
    );
    expect(redactText('the sk-abcdefghijklmnopqrstuv kayak', secrets)).toBe(
      'the sk-abcdefghijklmnopqrstuv kayak',
    );
  });
  it('data files are written byte for byte; manifests are redacted of the configured key (issue 12 item 2)', async () => {
    const key = 'sk-test-SHOULD-NEVER-BE-WRITTEN-0001';
    process.env.OPENAI_API_KEY = key;
    try {
      const dir = tmpDir();
      const passage = { docid: 'd1', text: 'Bearer instruments are securities; hf_abcdefghijklmnopqrstuvwx' };
      await writeJsonl(join(dir, 'a.jsonl'), [passage]);
      const ap = new JsonlAppender(join(dir, 'b.jsonl'));
      ap.append(passage);
      ap.close();
      for (const f of ['a.jsonl', 'b.jsonl'])
        expect(readFileSync(join(dir, f), 'utf8')).toBe(`${JSON.stringify(passage)}\n`);
      await writeManifest(dir, { kind: 'test', config: { synthesis: { apiKey: key, note: `x ${key} y` } } });
      const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
      expect(text).not.toContain(key);
      expect(text).toContain(`x ${REDACTED} y`);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});
