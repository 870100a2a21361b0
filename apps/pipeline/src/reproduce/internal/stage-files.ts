/** Files a stage wrote into its folder (what its record hashes), minus the runner's own files. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const RUNNER_FILES = new Set(['stage.json', '.stage-key', '.held']);

export function stageFiles(dir: string, options: { skipDirs?: readonly string[] } = {}): string[] {
  const out: string[] = [];
  const walk = (d: string, top: boolean) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!(top && options.skipDirs?.includes(e.name))) walk(p, false);
      } else if (e.isFile() && !(top && RUNNER_FILES.has(e.name)) && !e.name.includes('.tmp-')) out.push(p);
    }
  };
  walk(dir, true);
  return out;
}
