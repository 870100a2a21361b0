/**
 * A loopback server for the OpenAI Files and Batches endpoints on 127.0.0.1, for tests and
 * dry runs of `dv synth batch`: never a real model. Requests of a batch are answered by a
 * `startLoopbackChatServer` behind it (same default answers, same `[[fault:...]]` markers), so
 * a batch gives what the same requests sent one by one would give.
 *
 * Endpoints (shapes as in the OpenAI API reference, the subset the openai SDK uses):
 *   POST /v1/files                   multipart (purpose, file) -> FileObject
 *   GET  /v1/files[?purpose&after&limit], GET /v1/files/{id}, GET /v1/files/{id}/content
 *   POST /v1/batches                 {input_file_id, endpoint, completion_window, metadata}
 *   GET  /v1/batches[?after&limit], GET /v1/batches/{id}
 * Lists are newest first, paginated with `after` + `has_more`, like OpenAI's.
 *
 * Progress is driven by polls, not clocks, so tests never depend on timing: a batch is
 * `validating` when created, `in_progress` at its first retrieve, and `completed` at the
 * retrieve number `pollsToComplete` (then its output and error files exist). Limits are
 * enforced as OpenAI does: an upload over `maxBytesPerFile` is refused (400), a batch over
 * `maxRequestsPerFile` lines fails validation (`status: failed`, `errors.data`).
 * `expireBatches: n` makes the first n batches end `expired` after answering only their first
 * half (OpenAI returns the finished part of an expired batch). `requireKey` refuses other keys
 * with 401.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoopbackChatServerOptions, startLoopbackChatServer } from './loopback-chat-server.js';

export interface LoopbackBatchServerOptions {
  maxRequestsPerFile?: number;
  maxBytesPerFile?: number;
  /** Retrieves until a batch completes (default 2). */
  pollsToComplete?: number;
  expireBatches?: number;
  /** When set, requests without `Authorization: Bearer <requireKey>` get 401. */
  requireKey?: string;
  chat?: LoopbackChatServerOptions;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: Buffer;
  created_at: number;
}

interface StoredBatch {
  id: string;
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata: Record<string, string> | null;
  created_at: number;
  polls: number;
  status: 'validating' | 'in_progress' | 'completed' | 'failed' | 'expired';
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: 'list'; data: Array<{ code: string; message: string; line: number | null }> } | null;
  request_counts: { total: number; completed: number; failed: number };
}

export interface LoopbackBatchServer {
  /** Base URL for the openai SDK, ending in `/v1`. */
  readonly url: string;
  /** Every file uploaded (purpose `batch`) and every batch created, in order. */
  readonly uploads: ReadonlyArray<{ id: string; filename: string; bytes: number; lines: number }>;
  readonly batches: ReadonlyArray<{ id: string; input_file_id: string; status: string }>;
  /** Chat requests answered (one per batch line). */
  readonly chatRequests: number;
  readonly authorizations: string[];
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
};

export async function startLoopbackBatchServer(
  options: LoopbackBatchServerOptions = {},
): Promise<LoopbackBatchServer> {
  const chat = await startLoopbackChatServer(options.chat);
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, StoredBatch>();
  const authorizations: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let clock = 1_700_000_000;
  let expired = 0;
  const newId = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;

  const fileObject = (f: StoredFile) => ({
    id: f.id,
    object: 'file',
    bytes: f.bytes.length,
    created_at: f.created_at,
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
  });
  const batchObject = (b: StoredBatch) => {
    const { polls: _p, ...rest } = b;
    return { ...rest, object: 'batch' };
  };
  const page = <T extends { id: string }>(items: T[], url: URL) => {
    const newest = [...items].reverse();
    const after = url.searchParams.get('after');
    const start = after ? newest.findIndex((x) => x.id === after) + 1 : 0;
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const data = newest.slice(start, start + limit);
    return {
      object: 'list',
      data,
      has_more: start + limit < newest.length,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    };
  };

  const store = (filename: string, purpose: string, bytes: Buffer): StoredFile => {
    const f = { id: newId('file'), filename, purpose, bytes, created_at: clock++ };
    files.set(f.id, f);
    return f;
  };

  /** Answers every line of a batch through the chat server; returns output and error lines. */
  const runBatch = async (b: StoredBatch, lines: string[], upTo: number) => {
    const out: string[] = [];
    const err: string[] = [];
    for (const [i, text] of lines.slice(0, upTo).entries()) {
      const line = JSON.parse(text) as { custom_id: string; body: unknown };
      const r = await fetch(`${chat.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(line.body),
      });
      const body = await r.json();
      const row = {
        id: `batch_req_${b.id}_${i}`,
        custom_id: line.custom_id,
        response: { status_code: r.status, request_id: `req_${i}`, body },
        error: null,
      };
      (r.status === 200 ? out : err).push(`${JSON.stringify(row)}\n`);
    }
    return { out, err };
  };

  const advance = async (b: StoredBatch) => {
    if (b.status === 'validating') {
      b.status = 'in_progress';
    }
    b.polls++;
    if (b.status !== 'in_progress' || b.polls < (options.pollsToComplete ?? 2)) return;
    const input = files.get(b.input_file_id)!;
    const lines = input.bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const expire = expired < (options.expireBatches ?? 0);
    if (expire) expired++;
    const { out, err } = await runBatch(b, lines, expire ? Math.ceil(lines.length / 2) : lines.length);
    if (out.length)
      b.output_file_id = store(`${b.id}_output.jsonl`, 'batch_output', Buffer.from(out.join(''))).id;
    if (err.length)
      b.error_file_id = store(`${b.id}_error.jsonl`, 'batch_output', Buffer.from(err.join(''))).id;
    b.request_counts = { total: lines.length, completed: out.length, failed: err.length };
    b.status = expire ? 'expired' : 'completed';
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    authorizations.push(String(req.headers.authorization ?? ''));
    if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`)
      return json(res, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
      });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/v1/, '');
    const parts = path.split('/').filter(Boolean);
    if (req.method === 'POST' && path === '/files') {
      // Parse the multipart body with the platform's own Fetch implementation.
      const form = await new Request('http://x/', {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body,
      }).formData();
      const file = form.get('file');
      const purpose = String(form.get('purpose') ?? '');
      if (!(file instanceof Blob) || purpose === '')
        return json(res, 400, {
          error: { message: 'file and purpose are required', type: 'invalid_request_error' },
        });
      const bytes = Buffer.from(await file.arrayBuffer());
      if (options.maxBytesPerFile !== undefined && bytes.length > options.maxBytesPerFile)
        return json(res, 400, {
          error: {
            message: `file is ${bytes.length} bytes; the limit is ${options.maxBytesPerFile}`,
            type: 'invalid_request_error',
            code: 'file_too_large',
          },
        });
      const name = (file as File).name ?? 'upload.jsonl';
      return json(res, 200, fileObject(store(name, purpose, bytes)));
    }
    if (req.method === 'GET' && parts[0] === 'files') {
      if (parts.length === 1) {
        const purpose = url.searchParams.get('purpose');
        return json(
          res,
          200,
          page([...files.values()].filter((f) => !purpose || f.purpose === purpose).map(fileObject), url),
        );
      }
      const f = files.get(parts[1]!);
      if (!f)
        return json(res, 404, { error: { message: `no file ${parts[1]}`, type: 'invalid_request_error' } });
      if (parts[2] === 'content') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.bytes.length });
        res.end(f.bytes);
        return;
      }
      return json(res, 200, fileObject(f));
    }
    if (req.method === 'POST' && path === '/batches') {
      const p = JSON.parse(body.toString('utf8')) as {
        input_file_id: string;
        endpoint: string;
        completion_window: string;
        metadata?: Record<string, string>;
      };
      const input = files.get(p.input_file_id);
      if (!input)
        return json(res, 400, {
          error: { message: `no file ${p.input_file_id}`, type: 'invalid_request_error' },
        });
      const lines = input.bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length;
      const b: StoredBatch = {
        id: newId('batch'),
        input_file_id: p.input_file_id,
        endpoint: p.endpoint,
        completion_window: p.completion_window,
        metadata: p.metadata ?? null,
        created_at: clock++,
        polls: 0,
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        errors: null,
        request_counts: { total: lines, completed: 0, failed: 0 },
      };
      if (options.maxRequestsPerFile !== undefined && lines > options.maxRequestsPerFile) {
        b.status = 'failed';
        b.errors = {
          object: 'list',
          data: [
            {
              code: 'too_many_requests',
              message: `the file has ${lines} requests; a batch takes at most ${options.maxRequestsPerFile}`,
              line: null,
            },
          ],
        };
      }
      batches.set(b.id, b);
      return json(res, 200, batchObject(b));
    }
    if (req.method === 'GET' && parts[0] === 'batches') {
      if (parts.length === 1) return json(res, 200, page([...batches.values()].map(batchObject), url));
      const b = batches.get(parts[1]!);
      if (!b)
        return json(res, 404, { error: { message: `no batch ${parts[1]}`, type: 'invalid_request_error' } });
      await advance(b);
      return json(res, 200, batchObject(b));
    }
    return json(res, 404, { error: { message: `not found: ${req.method} ${url.pathname}` } });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { error: { message: err.message } });
      else res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get uploads() {
      return [...files.values()]
        .filter((f) => f.purpose === 'batch')
        .map((f) => ({
          id: f.id,
          filename: f.filename,
          bytes: f.bytes.length,
          lines: f.bytes
            .toString('utf8')
            .split('\n')
            .filter((l) => l.trim() !== '').length,
        }));
    },
    get batches() {
      return [...batches.values()].map((b) => ({
        id: b.id,
        input_file_id: b.input_file_id,
        status: b.status,
      }));
    },
    get chatRequests() {
      return chat.requests;
    },
    authorizations,
    close: async () => {
      await chat.close();
      await new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    },
  };
}
