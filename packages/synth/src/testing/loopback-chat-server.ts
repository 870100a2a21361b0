/**
 * A loopback server that speaks the chat-completions API (`POST /v1/chat/completions`) on
 * 127.0.0.1 at a random port, for tests, benchmarks and dry runs: never a real model.
 *
 * Default answers: for a polarity-reversal prompt, an instruction naming two words of the
 * target text that the positive text lacks (or `None` when there are none); for a judge
 * prompt, "relevant" for each text that shares a content word with the instruction.
 *
 * Faults are injected by a marker anywhere in the last user message, so a test decides per
 * seed: `[[fault:429]]` (429 with `Retry-After: 1`), `[[fault:500]]`, `[[fault:hang]]` (never
 * answers), `[[fault:truncate]]` (headers promise more body than is sent, then the socket
 * closes), `[[fault:malformed]]` (XML with no closing tag), `[[fault:none]]` (answers `None`),
 * `[[fault:prose]]` (the answer wrapped in prose and a code fence), `[[fault:400]]` (bad request), `[[fault:401]]` (key refused). A marker applies to the
 * first attempt of that prompt only; with a `*` (`[[fault:500*]]`) it applies to every attempt.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackChatServerOptions {
  /** Fixed delay before each answer (ms). */
  latencyMs?: number;
  /** Seconds sent in Retry-After for the 429 fault. */
  retryAfterSeconds?: number;
  /** Replaces the default answer (fault markers still apply first). */
  respond?: (messages: Array<{ role: string; content: string }>) => string;
}

export interface LoopbackChatServer {
  /** Base URL to give the OpenAI SDK, ending in `/v1`. */
  readonly url: string;
  readonly requests: number;
  readonly maxInFlight: number;
  /** Authorization headers received (so tests can check the key was sent, and nowhere else). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

const words = (s: string) => s.toLowerCase().match(/[a-z]{5,}/g) ?? [];

function between(text: string, tag: string): string {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return m?.[1] ?? '';
}

function defaultAnswer(user: string): string {
  if (user.includes('<judge_request>')) {
    const instr = between(user, 'instruction');
    const query = new Set(words(between(user, 'query')));
    const cues = new Set(words(instr).filter((w) => !query.has(w)));
    const verdicts = [...user.matchAll(/<text id="([^"]+)">([\s\S]*?)<\/text>/g)].map(([, id, body]) => {
      const rel = words(body ?? '').some((w) => cues.has(w));
      return `<verdict id="${id}">${rel ? 'relevant' : 'not relevant'}</verdict>`;
    });
    return `<judgement>${verdicts.join('')}</judgement>`;
  }
  const pos = new Set(words(between(user, 'positive')));
  const others = new Set(words(between(user, 'other_negatives')));
  const query = new Set(words(between(user, 'query')));
  const cand = [...new Set(words(between(user, 'target')))].filter(
    (w) => !pos.has(w) && !others.has(w) && !query.has(w),
  );
  if (cand.length === 0) return '<answer>None</answer>';
  return `<answer><new_instruction>I want material that mentions ${cand.slice(0, 2).join(' and ')}.</new_instruction></answer>`;
}

export async function startLoopbackChatServer(
  options: LoopbackChatServerOptions = {},
): Promise<LoopbackChatServer> {
  const attemptsByPrompt = new Map<string, number>();
  const authorizations: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const latency = options.latencyMs ?? 0;

  const reply = (res: ServerResponse, content: string, promptChars: number) => {
    const body = JSON.stringify({
      id: `chatcmpl-${requests}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'loopback',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: Math.ceil(promptChars / 4),
        completion_tokens: Math.ceil(content.length / 4),
        total_tokens: Math.ceil(promptChars / 4) + Math.ceil(content.length / 4),
      },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    requests++;
    authorizations.push(String(req.headers.authorization ?? ''));
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messages: Array<{ role: string; content: string }>;
    };
    const user = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
    const h = createHash('sha256').update(JSON.stringify(body.messages)).digest('hex');
    const attempt = (attemptsByPrompt.get(h) ?? 0) + 1;
    attemptsByPrompt.set(h, attempt);
    const marker = /\[\[fault:([a-z0-9]+)(\*?)\]\]/.exec(user);
    const fault = marker && (marker[2] === '*' || attempt === 1) ? marker[1] : undefined;

    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    switch (fault) {
      case '429':
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(options.retryAfterSeconds ?? 1),
        });
        res.end(JSON.stringify({ error: { message: 'rate limited', type: 'rate_limit' } }));
        return;
      case '400':
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'bad request' } }));
        return;
      case '401':
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'invalid api key', type: 'invalid_request_error' } }));
        return;
      case '500':
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'internal error' } }));
        return;
      case 'hang':
        return; // never answer; the client's timeout must fire
      case 'truncate': {
        const full = JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'x'.repeat(200) } }],
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(full) });
        res.write(full.slice(0, 40));
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      }
      case 'malformed':
        reply(res, '<answer><new_instruction>Only results about', promptChars);
        return;
      case 'none':
        reply(res, 'This one is too hard to reverse.\n<answer>None</answer>', promptChars);
        return;
      case 'prose':
        reply(
          res,
          `Sure! Here is my answer:\n\`\`\`xml\n${defaultAnswer(user)}\n\`\`\`\nHope it helps.`,
          promptChars,
        );
        return;
      default:
        reply(res, options.respond ? options.respond(body.messages) : defaultAnswer(user), promptChars);
    }
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: err.message } }));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
