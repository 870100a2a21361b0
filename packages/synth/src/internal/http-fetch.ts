/**
 * A `fetch` for the openai SDK (its `fetch` option) over node:http / node:https with one
 * keep-alive agent per backend, sized to the backend's concurrency so every request in flight
 * has its own reused socket.
 *
 * Why: at hundreds of requests in flight the client's event loop, not the server, sets the
 * pace, and Node's built-in fetch (undici) costs more per request than the request itself:
 * a Request object, a fetch controller and WHATWG streams for each body (profile of
 * `pnpm -F @dv/synth bench`, docs/benchmarks.md). Chat completions are small JSON bodies in
 * and out, so this reads the answer into one buffer and hands the SDK a minimal Response
 * (status, headers, text / json / arrayBuffer).
 *
 * Contract kept for the SDK and for openai-chat.ts's classification:
 * - connection failures reject with `TypeError('fetch failed', { cause })`, cause carrying the
 *   socket error's `code` (ECONNREFUSED ...), as undici does;
 * - `init.signal` aborts the request or the body read with an `AbortError` (the SDK's timeout
 *   and the caller's cancel);
 * - a body cut short (the socket closes before the response is complete) rejects `text()` /
 *   `json()` with `TypeError('terminated')`, as undici does.
 * Anything else (a Request object, a streamed or form body) goes to the global fetch.
 */
import http from 'node:http';
import https from 'node:https';

type FetchInit = {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
};

function abortError(reason: unknown): Error {
  const err = new Error(reason instanceof Error ? reason.message : 'This operation was aborted');
  err.name = 'AbortError';
  return err;
}

/** Request headers from a Headers, an array of pairs or a record (the SDK sends a Headers). */
function headerRecord(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (typeof (h as Headers).forEach === 'function' && !Array.isArray(h)) {
    (h as Headers).forEach((v, k) => {
      out[k] = v;
    });
    return out;
  }
  const pairs = Array.isArray(h) ? (h as [string, string][]) : Object.entries(h as Record<string, string>);
  for (const [k, v] of pairs) if (v !== undefined && v !== null) out[k.toLowerCase()] = String(v);
  return out;
}

/** The part of a WHATWG Response the SDK reads, over a fully buffered body. */
class BufferedResponse {
  readonly ok: boolean;
  readonly body = null;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
    private readonly bytes: Promise<Buffer>,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  get bodyUsed(): boolean {
    return this.used;
  }
  private read(): Promise<Buffer> {
    if (this.used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.used = true;
    return this.bytes;
  }
  async text(): Promise<string> {
    return (await this.read()).toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.read();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
}

export interface HttpFetch {
  fetch: typeof globalThis.fetch;
  /** Closes the idle sockets (in-flight requests finish). Idle sockets never keep the process alive. */
  close(): void;
}

export function createHttpFetch(options: { maxSockets: number }): HttpFetch {
  const sockets = Math.max(1, options.maxSockets);
  const agentOptions = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  function request(url: URL, init: FetchInit): Promise<BufferedResponse> {
    return new Promise((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(abortError(signal.reason));
      const secure = url.protocol === 'https:';
      let settledBody: ((err?: Error) => void) | undefined;
      const onAbort = () => {
        const err = abortError(signal?.reason);
        req.destroy(err);
        settledBody?.(err);
      };
      const cleanup = () => signal?.removeEventListener('abort', onAbort);
      const req = (secure ? https : http).request(
        url,
        {
          method: (init.method ?? 'GET').toUpperCase(),
          headers: headerRecord(init.headers),
          agent: secure ? agents.https : agents.http,
        },
        (res) => {
          const chunks: Buffer[] = [];
          const bytes = new Promise<Buffer>((ok, fail) => {
            let done = false;
            settledBody = (err) => {
              if (done) return;
              done = true;
              cleanup();
              if (err) fail(err);
              else ok(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
            };
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => settledBody?.());
            res.on('error', (err) =>
              settledBody?.(err.name === 'AbortError' ? err : new TypeError('terminated', { cause: err })),
            );
            res.on('close', () => {
              if (!res.complete) settledBody?.(new TypeError('terminated'));
            });
          });
          bytes.catch(() => {}); // a body nobody reads must not become an unhandled rejection
          const headers = new Headers();
          const raw = res.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
          resolve(
            new BufferedResponse(res.statusCode ?? 0, res.statusMessage ?? '', headers, url.href, bytes),
          );
        },
      );
      req.on('error', (err) => {
        cleanup();
        reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err }));
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      const body = init.body;
      req.end(body === undefined || body === null ? undefined : (body as string | Uint8Array));
    });
  }

  const fetchImpl = (input: unknown, init: FetchInit = {}) => {
    const body = init.body;
    const plainBody =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
    if (url === undefined || !plainBody || !/^https?:/i.test(url))
      return globalThis.fetch(input as string, init as RequestInit);
    return request(new URL(url), init);
  };

  return {
    fetch: fetchImpl as unknown as typeof globalThis.fetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
