/**
 * The progress lines of `dv synth batch` on stderr, one per Batch API job event (round,
 * upload, batch created, poll with an ETA, download, import).
 */
import type { BatchJobEvent } from '@dv/synth';

export function renderBatchEvents(stderr: NodeJS.WritableStream, outDir: string): (e: BatchJobEvent) => void {
  const say = (line: string) => stderr.write(`${line}\n`);
  const started = Date.now();
  return (e) => {
    if (e.type === 'round') say(`batch round ${e.round}: ${e.requests} requests in ${e.parts} input file(s)`);
    else if (e.type === 'uploaded')
      say(`  part ${e.part}: ${e.reused ? 'found earlier upload' : 'uploaded'} ${e.fileId}`);
    else if (e.type === 'created')
      say(`  part ${e.part}: ${e.reused ? 'found earlier batch' : 'batch'} ${e.batchId}`);
    else if (e.type === 'polled') {
      const done = e.completed + e.failed;
      const secs = (Date.now() - started) / 1000;
      const eta = done > 0 && done < e.total ? `, ETA ${Math.round((secs / done) * (e.total - done))} s` : '';
      say(`  ${done}/${e.total} requests done (${e.failed} failed), ${e.open} batch(es) open${eta}`);
    } else if (e.type === 'downloaded')
      say(`  part ${e.part}: ${e.status}; downloaded ${e.files.join(', ') || 'nothing'}`);
    else if (e.type === 'importing') say(`importing ${e.files.length} output file(s) into ${outDir}`);
  };
}
