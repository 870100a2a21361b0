// Child process for the throughput benchmark: a chat-completions server on 127.0.0.1 that
// answers every POST after a fixed latency, in its own process so that server work does not
// run on the client's event loop. It shares the machine's cores with the client, so it does as
// little as it can per request: the body is drained unparsed and the answer is bytes built once
// (what the loopback chat server answers for the bench's seeds, which differ only in numbers:
// an instruction the guardrails accept), with no Date header. The bound C / L then measures
// the client, not this server.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const latencyMs = Number(process.argv[2] ?? 50);
const content =
  '<answer><new_instruction>I want material that mentions porcelain and figurine.</new_instruction></answer>';
const body = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'loopback',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 120, completion_tokens: 26, total_tokens: 146 },
  }),
);
const headers = ['content-type', 'application/json', 'content-length', String(body.length)];
let requests = 0;
let inFlight = 0;
let maxInFlight = 0;

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  res.sendDate = false;
  inFlight++;
  if (inFlight > maxInFlight) maxInFlight = inFlight;
  req.resume(); // drain the body unparsed
  req.on('end', () => {
    requests++;
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, headers);
      res.end(body);
    }, latencyMs);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/v1` })}\n`);
});
process.on('message', (m) => {
  if (m === 'stats') process.send?.({ requests, maxInFlight });
  if (m === 'close') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
