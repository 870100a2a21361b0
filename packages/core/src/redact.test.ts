import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlAppender, REDACTED, redactSecrets, redactText, writeJsonl, writeManifest } from './index.js';
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
  it('redacts environment secret values anywhere in text, and credential shapes', () => {
    expect(redactText('url?k=super-secret-value-123&x', secrets)).toBe(`url?k=${REDACTED}&x`);
    expect(redactText('key sk-abcdefghijklmnopqrstuv end', [])).toBe(`key ${REDACTED} end`);
    expect(redactText('Authorization: Bearer abcdefgh12345', [])).toBe(`Authorization: ${REDACTED}`);
    expect(redactText('plain text about bass', secrets)).toBe('plain text about bass');
  });
  it('nothing the core writers write contains the API key from the environment', async () => {
    const key = 'sk-test-SHOULD-NEVER-BE-WRITTEN-0001';
    process.env.OPENAI_API_KEY = key;
    try {
      const dir = tmpDir();
      await writeJsonl(join(dir, 'a.jsonl'), [{ note: `called with ${key}` }]);
      const ap = new JsonlAppender(join(dir, 'b.jsonl'));
      ap.append({ err: `401 for key ${key}` });
      ap.close();
      await writeManifest(dir, { kind: 'test', config: { synthesis: { apiKey: key, note: key } } });
      for (const f of ['a.jsonl', 'b.jsonl', 'manifest.json']) {
        const text = readFileSync(join(dir, f), 'utf8');
        expect(text).not.toContain(key);
        expect(text).toContain(REDACTED);
      }
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});
