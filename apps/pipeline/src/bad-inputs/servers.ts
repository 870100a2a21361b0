/**
 * Loopback servers for the bad-input suite, all real HTTP on 127.0.0.1: the chat server of
 * @dv/synth (fault markers per seed), a port nothing listens on, and a status server whose
 * path prefix picks the failure: /s401, /s429, /s500 (with `retry-after-ms: 1` so clients'
 * retries stay fast), /nonjson (200 with an HTML body), and /hub-evil, a Hub whose file list
 * holds `../../ESCAPED-hub` with a matching hash.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { type LoopbackChatServer, startLoopbackChatServer } from '@dv/synth/testing';

export interface SuiteServers {
  urls: Record<string, string>;
  close(): Promise<void>;
}

const COMMIT = 'e5ca9ed000000000000000000000000000000001';
const BODY = Buffer.from('escaped\n');
const gitSha1 = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

async function closedPortUrl(): Promise<string> {
  const s = createNetServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return `http://127.0.0.1:${port}`;
}

export async function startSuiteServers(): Promise<SuiteServers> {
  const chat: LoopbackChatServer = await startLoopbackChatServer();
  const status: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (code: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    req.resume();
    if (path.startsWith('/s401')) return json(401, { error: { message: 'invalid api key' } });
    if (path.startsWith('/s429'))
      return json(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1' });
    if (path.startsWith('/s500')) return json(500, { error: { message: 'boom' } }, { 'retry-after-ms': '1' });
    if (path.startsWith('/nonjson')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html><body>502 Bad Gateway</body></html>');
    }
    if (path.startsWith('/hub-evil')) {
      if (path.includes('/revision/')) return json(200, { sha: COMMIT });
      if (path.includes('/tree/'))
        return json(200, [
          { type: 'file', path: '../../ESCAPED-hub', size: BODY.length, oid: gitSha1(BODY) },
        ]);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(BODY);
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((ok) => status.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(status.address() as { port: number }).port}`;
  return {
    urls: {
      chat: chat.url,
      closed: `${await closedPortUrl()}/v1`,
      closedHub: await closedPortUrl(),
      s401: `${base}/s401/v1`,
      s429: `${base}/s429/v1`,
      s500: `${base}/s500/v1`,
      nonjson: `${base}/nonjson/v1`,
      hubEvil: `${base}/hub-evil`,
      hub401: `${base}/s401`,
      hub500: `${base}/s500`,
      hubNonJson: `${base}/nonjson`,
    },
    async close() {
      await chat.close();
      status.closeAllConnections();
      await new Promise<void>((ok) => status.close(() => ok()));
    },
  };
}
