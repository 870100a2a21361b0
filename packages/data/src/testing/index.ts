/**
 * @dv/data/testing: a local stand-in for the Hugging Face Hub's file API (127.0.0.1, random
 * port) that serves datasets and models from memory, for tests and dry runs of the paper
 * profile. Not part of the main entry.
 */

export {
  type LoopbackHubRepo,
  type LoopbackHubServer,
  type LoopbackHubServerOptions,
  startLoopbackHubServer,
} from './loopback-hub-server.js';
