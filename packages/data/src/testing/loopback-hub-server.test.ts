import { readFileSync } from 'node:fs';
import { tmpDir } from '@dv/core/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadDataset, downloadModel } from '../hub/hub-client.js';
import { type LoopbackHubServer, startLoopbackHubServer } from './loopback-hub-server.js';

let hub: LoopbackHubServer;
const big = 'x'.repeat(5000);

beforeAll(async () => {
  hub = await startLoopbackHubServer({
    repos: [
      { type: 'dataset', repo: 'org/set', files: { 'data/train.jsonl': big, 'README.md': '# set\n' } },
      { type: 'model', repo: 'org/model', files: { 'config.json': '{"model_type":"bert"}' } },
    ],
  });
});
afterAll(() => hub.close());

describe('loopback Hub server', () => {
  it('serves datasets and models to the real Hub client (LFS and git files, hashes checked)', async () => {
    const cacheDir = tmpDir();
    const d = await downloadDataset('org/set', 'main', { endpoint: hub.url, cacheDir });
    expect(d.commit).toBe(hub.commits.get('dataset/org/set'));
    expect(d.files).toHaveLength(2);
    expect(readFileSync(d.files.find((f) => f.endsWith('train.jsonl'))!, 'utf8')).toBe(big);
    const m = await downloadModel('org/model', hub.commits.get('model/org/model')!, {
      endpoint: hub.url,
      cacheDir,
    });
    expect(readFileSync(m.files[0]!, 'utf8')).toBe('{"model_type":"bert"}');
    expect(m.dir).toContain('models--org--model');
  });
  it('answers 404 for unknown repos and revisions, as the Hub does', async () => {
    await expect(
      downloadDataset('org/none', 'main', { endpoint: hub.url, cacheDir: tmpDir() }),
    ).rejects.toThrow(/HTTP 404 Repository not found/);
    await expect(downloadDataset('org/set', 'v9', { endpoint: hub.url, cacheDir: tmpDir() })).rejects.toThrow(
      /HTTP 404 Invalid rev id: v9/,
    );
  });
});
