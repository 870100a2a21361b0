/**
 * @dv/synth/testing: local stand-ins for the LLM endpoints, for tests, benchmarks and dry runs
 * (never a real model): a chat-completions server and an OpenAI-style batch-files server on
 * 127.0.0.1. Not part of the main entry, so a library user's bundle never carries them.
 */

export {
  type LoopbackBatchServer,
  startLoopbackBatchServer,
} from './loopback-batch-server.js';
export {
  type LoopbackChatServer,
  startLoopbackChatServer,
} from './loopback-chat-server.js';
