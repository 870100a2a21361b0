/**
 * Resume support shared by the training loops (`trainRetriever`, `pretrainMlm`): a run folder's
 * metrics.jsonl cut back to the records up to the checkpoint a resume starts from, so a crash
 * past it (even kill -9, even mid-line) leaves no duplicate or torn records.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '@dv/core';

/** Keeps metrics records up to `step` (drops what a crash left past the checkpoint). */
export async function truncateMetrics(path: string, step: number): Promise<void> {
  if (!existsSync(path)) return;
  const keep = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => {
      if (!l.trim()) return false;
      try {
        return (JSON.parse(l) as { step: number }).step <= step;
      } catch {
        return false; // a line cut short by a crash
      }
    });
  await writeFileAtomic(path, keep.length ? `${keep.join('\n')}\n` : '');
}
