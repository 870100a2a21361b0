/**
 * @dv/data/testing: a local stand-in for the Hugging Face Hub's file API (127.0.0.1, random
 * port) that serves datasets and models from memory, for tests and dry runs of the paper
 * profile, and the writers of the FollowIR v1 and InfoSearch layouts that build stand-in
 * benchmark folders (the loaders' inverses). Not part of the main entry.
 */

export { writeFollowIRv1 } from '../loaders/followir-v1.js';
export { writeInfoSearch } from '../loaders/infosearch.js';
export {
  type LoopbackHubRepo,
  type LoopbackHubServer,
  startLoopbackHubServer,
} from './loopback-hub-server.js';
