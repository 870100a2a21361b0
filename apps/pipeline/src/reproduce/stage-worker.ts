/**
 * The worker side of `pnpm reproduce --jobs N` (stage-pool.ts): `dv __stage-worker`, started by
 * `dv reproduce` with an IPC channel, runs the stages it is sent, one at a time. For each it
 * reads the run folder's config.json (written before any stage runs), builds the stage list as
 * the runner did, and checks that the stage's key is the one the runner computed: the same
 * config slice, inputs and code. Its log and progress lines go back over the channel.
 *
 * It exits when its channel closes (the runner finished, or died) and on any stop signal: the
 * runner's Ctrl-C handling stops the run at once, and every stage's checkpoints are atomic.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { RunConfig } from '@dv/core';
import { keyOfStage, stageContext } from './run-dag.js';
import { stagesOf } from './run-reproduce.js';
import type { StageSpec } from './stage.js';
import { toWireError, type WorkerMessage, type WorkerRequest } from './stage-pool.js';

/** The stage list of a run folder, built once per config.json text. */
let built: { text: string; stages: StageSpec[] } | null = null;

function stagesOfRun(runDir: string): StageSpec[] {
  const path = join(runDir, 'config.json');
  const text = readFileSync(path, 'utf8');
  if (built?.text !== text) built = { text, stages: stagesOf(RunConfig.parse(JSON.parse(text))).stages };
  return built.stages;
}

async function runOne(req: WorkerRequest, send: (m: WorkerMessage) => void): Promise<void> {
  const spec = stagesOfRun(req.runDir).find((s) => s.id === req.id);
  if (!spec) throw new Error(`'${req.id}' is not a stage of ${join(req.runDir, 'config.json')}`);
  const digests = Object.fromEntries(Object.entries(req.deps).map(([id, r]) => [id, r.outputDigest]));
  const { key } = keyOfStage(spec, digests);
  if (key !== req.key)
    throw new Error(
      `'${req.id}' has key ${key.slice(0, 12)} in the worker and ${req.key.slice(0, 12)} in dv reproduce: ` +
        `its code or ${join(req.runDir, 'config.json')} changed during the run; run again`,
    );
  const write = (text: string) => send({ type: 'write', text });
  // progress lines, as the runner's stream would get them
  const channel = new Writable({
    write(chunk, _encoding, done) {
      write(String(chunk));
      done();
    },
  });
  const ctx = stageContext({
    spec,
    runDir: req.runDir,
    deps: req.deps,
    signal: new AbortController().signal,
    log: (line) => send({ type: 'log', line }),
    say: (line) => write(`${line}\n`),
    stream: channel,
    progressMode: req.progressMode,
    hold: req.hold ?? undefined,
  });
  const outcome = await spec.run(ctx);
  send({ type: 'done', outcome });
}

/** `dv __stage-worker`: serves stage requests until the channel closes. */
export function stageWorkerMain(): void {
  const send = process.send?.bind(process);
  if (!send) {
    process.stderr.write('dv: __stage-worker is started by dv reproduce --jobs, not by hand\n');
    process.exitCode = 2;
    return;
  }
  process.on('disconnect', () => process.exit(130));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => process.exit(130));
  let queue = Promise.resolve();
  process.on('message', (m: WorkerRequest) => {
    queue = queue.then(() =>
      runOne(m, (msg) => send(msg)).catch((err: unknown) => {
        send({ type: 'failed', error: toWireError(err) });
      }),
    );
  });
}
