/**
 * The paper profile's prerequisite check against loopback stand-ins on 127.0.0.1: a server
 * speaking the Hub's revision API for datasets and models, and the synth package's loopback
 * chat server. A scaled-down paper config points at them.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { HUB_DATASETS } from '@dv/data';
import { type LoopbackChatServer, startLoopbackChatServer } from '@dv/synth/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';
import { checkPaperPrerequisites } from './paper-prerequisites.js';
import { resolveReproduceConfig } from './reproduce-config.js';

const core17 = HUB_DATASETS['followir-core17'];
const news21 = HUB_DATASETS['followir-news21'];
const MODEL_REPO = 'org/mini-gte-mlm';
const PROMPTRIEVER_PIN = 'c'.repeat(40);

/** Answers the Hub's revision endpoints for the repos in `known`, 404 for anything else. */
function startHub(known: Set<string>): Promise<Server> {
  const server = createServer((req, res) => {
    const m = /^\/api\/(datasets|models)\/(.+)\/revision\/([^/]+)$/.exec(req.url ?? '');
    if (m && known.has(`${m[1]}/${m[2]}`)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sha: /^[0-9a-f]{40}$/.test(m[3]!) ? m[3] : 'a'.repeat(40), siblings: [] }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"Repository not found"}');
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

let hub: Server;
let chat: LoopbackChatServer;
const dir = mkdtempSync(join(tmpdir(), 'dv-paper-prereq-'));
const hubUrl = () => `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;

/** A paper config; `synthesis` and `benchmarks` given with the paper section go to their slices. */
function writeConfig(name: string, section: Record<string, unknown>): string {
  const path = join(dir, name);
  const { synthesis, benchmarks, ...paper } = section;
  writeFileSync(
    path,
    JSON.stringify({
      mixes: { budget: 64 },
      synthesis,
      ...(benchmarks ? { eval: { benchmarks } } : {}),
      paper,
    }),
  );
  return path;
}

beforeAll(async () => {
  // news21 is not on this Hub: it must come from the cache
  hub = await startHub(
    new Set([
      `datasets/${core17.repo}`,
      `datasets/${HUB_DATASETS['followir-robust04'].repo}`,
      `datasets/${HUB_DATASETS.promptriever.repo}`,
      `models/${MODEL_REPO}`,
    ]),
  );
  chat = await startLoopbackChatServer();
});
afterAll(async () => {
  await chat.close();
  hub.closeAllConnections();
  await new Promise((ok) => hub.close(ok));
});

/** A Hub cache (huggingface_hub layout) holding news21 at its pin. */
function warmCache(): string {
  const cache = join(dir, 'warm-cache');
  mkdirSync(join(cache, `datasets--${news21.repo.replace('/', '--')}`, 'snapshots', news21.revision), {
    recursive: true,
  });
  return cache;
}

const present = () => ({
  synthesis: { baseURLs: [chat.url], model: 'loopback' },
  datasets: [{ name: 'promptriever', revision: PROMPTRIEVER_PIN }],
  models: [{ name: 'mini-gte-mlm', repo: MODEL_REPO, revision: 'main' }],
  benchmarks: ['followir'],
  hubEndpoint: hubUrl(),
  hubCache: warmCache(),
  compute: 'scale-out',
  scaleOut: { command: process.execPath },
});

describe('paper profile prerequisites', () => {
  it('lists everything missing at once, each with what to do', async () => {
    const config = resolveReproduceConfig({
      profile: 'paper',
      configFile: writeConfig('missing.json', {
        synthesis: { baseURLs: ['http://127.0.0.1:9/v1'], model: 'Qwen/Qwen3-Next-80B-A3B-Instruct' },
        datasets: ['no-such-set'],
        models: [{ name: 'gte', repo: 'Alibaba-NLP/gte-multilingual-mlm-base', revision: 'main' }],
        benchmarks: ['followir'],
        hubEndpoint: hubUrl(),
        hubCache: join(dir, 'empty-cache'),
        compute: 'gpu',
      }),
    });
    const missing = await checkPaperPrerequisites(config, { gpuBackend: async () => 'tensorflow' });
    expect(missing).toHaveLength(6);
    expect(missing[0]).toMatch(/synthesis endpoint http:\/\/127\.0\.0\.1:9\/v1: not reachable/);
    // the seed dataset and every task of the configured benchmarks are checked
    expect(missing.some((m) => /dataset 'promptriever'.*no pinned revision/.test(m))).toBe(true);
    expect(missing.some((m) => /dataset 'followir-news21'.*HTTP 404/.test(m))).toBe(true);
    expect(missing.some((m) => /dataset 'no-such-set': not a registered Hub dataset/.test(m))).toBe(true);
    expect(missing.some((m) => /backbone 'gte'.*HTTP 404/.test(m))).toBe(true);
    expect(missing.at(-1)).toMatch(/compute gpu: no GPU backend .*'tensorflow'/);
  });

  it('finds nothing missing with the loopback Hub, a warm cache, the chat server and a launcher', async () => {
    const config = resolveReproduceConfig({
      profile: 'paper',
      configFile: writeConfig('ok.json', present()),
    });
    expect(config.backbones).toEqual(['mini-gte-mlm']); // a config's own models are its backbones
    expect(await checkPaperPrerequisites(config)).toEqual([]);
    expect(chat.requests).toBeGreaterThan(0); // no /models listing there: the 1-token chat probe answered
  });

  it('a dataset neither cached (huggingface_hub layout) nor on the Hub is missing', async () => {
    const config = resolveReproduceConfig({
      profile: 'paper',
      configFile: writeConfig('cold.json', { ...present(), hubCache: join(dir, 'cold-cache') }),
    });
    const missing = await checkPaperPrerequisites(config);
    expect(missing).toEqual([
      expect.stringMatching(/^dataset 'followir-news21' .*not cached and the Hub answered HTTP 404/),
    ]);
  });

  it('dv reproduce --profile paper stops with one list and exit 1', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d) => {
      err += String(d);
    });
    const code = await runCommand(
      rootCommand,
      [
        'reproduce',
        '--profile',
        'paper',
        '--config',
        writeConfig('cli.json', {
          ...present(),
          datasets: [],
          scaleOut: { command: 'no-such-launcher' },
        }),
        '--out',
        join(dir, 'run'),
      ],
      { stdout: new PassThrough(), stderr },
    );
    expect(code).toBe(1);
    expect(err).toMatch(
      /the paper profile cannot start; missing \(2\):\n {2}- dataset 'promptriever'.*\n {2}- compute scale-out: 'no-such-launcher' is not an executable on PATH/,
    );
    expect(err).not.toMatch(/at .*\.ts:\d+/); // no stack trace for a user error
  });

  it('with everything present it runs the stages: here the stand-in Hub has no files, exit 1 naming the repo', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d) => {
      err += String(d);
    });
    const runDir = join(dir, 'run-ok');
    const code = await runCommand(
      rootCommand,
      ['reproduce', '--profile', 'paper', '--config', writeConfig('cli-ok.json', present()), '--out', runDir],
      { stdout: new PassThrough(), stderr },
    );
    expect(code).toBe(1);
    expect(err).not.toMatch(/not built/);
    expect(err).toMatch(/seeds: running/); // past the prerequisites, into the DAG
    expect(err).toMatch(
      new RegExp(`file list of ${HUB_DATASETS.promptriever.repo}@${PROMPTRIEVER_PIN}: HTTP 404`),
    );
    expect(existsSync(join(runDir, 'stages', 'seeds', 'stage.json'))).toBe(false);
  });
});
