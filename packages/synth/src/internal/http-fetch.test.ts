import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetch } from './http-fetch.js';

// A real HTTP server on 127.0.0.1: counts the TCP connections it accepts.
async function serve(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, connections: () => connections };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('createHttpFetch', () => {
  it('posts the body and headers, returns status, headers and JSON, and reuses one socket (keep-alive)', async () => {
    const seen: { method?: string; auth?: string; body: string }[] = [];
    const s = await serve(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      seen.push({ method: req.method, auth: req.headers.authorization, body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1' });
      res.end(JSON.stringify({ echo: JSON.parse(body) }));
    });
    servers.push(s.server);
    const t = createHttpFetch({ maxSockets: 4 });
    for (let i = 0; i < 3; i++) {
      const r = await t.fetch(`${s.url}/v1/chat`, {
        method: 'post',
        headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
        body: JSON.stringify({ i }),
      });
      expect([r.status, r.ok, r.headers.get('x-request-id')]).toEqual([201, true, 'r1']);
      expect(await r.json()).toEqual({ echo: { i } });
      await expect(r.text()).rejects.toThrow(/already been read/);
    }
    expect(seen.map((x) => [x.method, x.auth, x.body])).toEqual(
      [0, 1, 2].map((i) => ['POST', 'Bearer k', `{"i":${i}}`]),
    );
    expect(s.connections()).toBe(1);
    t.close();
  });

  it('opens at most maxSockets connections for requests in flight together', async () => {
    const s = await serve((_req, res) => setTimeout(() => res.end('{}'), 30));
    servers.push(s.server);
    const t = createHttpFetch({ maxSockets: 3 });
    const all = await Promise.all(
      Array.from({ length: 9 }, () => t.fetch(`${s.url}/x`).then((r) => r.text())),
    );
    expect(all).toEqual(Array(9).fill('{}'));
    expect(s.connections()).toBe(3);
    t.close();
  });

  it('rejects a refused connection as fetch does: TypeError with the socket error as cause', async () => {
    const s = await serve((_req, res) => res.end());
    const { url } = s;
    await new Promise((r) => s.server.close(r));
    const t = createHttpFetch({ maxSockets: 1 });
    const err = (await t.fetch(`${url}/x`).catch((e) => e)) as TypeError & { cause?: { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause?.code).toBe('ECONNREFUSED');
  });

  it('aborts a hanging request with an AbortError, and a body cut short rejects as terminated', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => res.socket?.destroy());
    });
    servers.push(s.server);
    const t = createHttpFetch({ maxSockets: 2 });
    const controller = new AbortController();
    const pending = t.fetch(`${s.url}/hang`, { signal: controller.signal }).catch((e) => e);
    setImmediate(() => controller.abort(new Error('timeout')));
    const aborted = (await pending) as Error;
    expect(aborted.name).toBe('AbortError');
    const cut = await t.fetch(`${s.url}/cut`);
    expect(cut.status).toBe(200);
    const bodyErr = (await cut.text().catch((e) => e)) as Error;
    expect(bodyErr).toBeInstanceOf(TypeError);
    expect(bodyErr.message).toBe('terminated');
    t.close();
  });
});
