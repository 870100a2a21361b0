// Child process for the throughput benchmark: a loopback chat server with a fixed latency, in
// its own process so that server work does not run on the client's event loop.
import { startLoopbackChatServer } from '../src/loopback-chat-server.js';

const latencyMs = Number(process.argv[2] ?? 50);
const server = await startLoopbackChatServer({ latencyMs });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.on('message', async (m) => {
  if (m === 'stats') process.send?.({ requests: server.requests, maxInFlight: server.maxInFlight });
  if (m === 'close') {
    await server.close();
    process.exit(0);
  }
});
