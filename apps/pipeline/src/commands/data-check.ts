/** `dv data check`: loads a local dataset folder or Promptriever file and reports what it holds (@dv/data). */
import { join } from 'node:path';
import type { InstructedSet } from '@dv/core';
import {
  loadBeirFolder,
  loadFollowIRv1,
  loadFollowIRv2,
  loadInfoSearch,
  loadMairTask,
  readPromptriever,
} from '@dv/data';
import { defineCommand, requireString, UsageError } from '../cli-kit.js';

/** Layout name -> loader of a local folder (MAIR: a folder holding queries.* and docs.*). */
const LAYOUTS = Object.freeze({
  'followir-v1': (dir: string) => loadFollowIRv1(dir),
  'followir-v2': (dir: string) => loadFollowIRv2(dir),
  infosearch: (dir: string) => loadInfoSearch(dir),
  beir: (dir: string) => loadBeirFolder(dir),
  mair: (dir: string) =>
    loadMairTask({ queries: [join(dir, 'queries.jsonl')], docs: [join(dir, 'docs.jsonl')] }),
} as const satisfies Record<string, (dir: string) => Promise<InstructedSet>>);

export const dataCheckCommand = defineCommand({
  name: 'check',
  summary: 'load a local dataset folder or Promptriever file and report what it holds',
  usage: '--layout LAYOUT PATH',
  description: `Loads PATH with the loader for LAYOUT (${[...Object.keys(LAYOUTS), 'promptriever'].join(', ')}),
validating every row, and prints counts per mode. Bad input (missing files, wrong columns,
duplicate ids, qrels naming unknown documents) stops with file:line and exit 1.`,
  allowPositionals: true,
  options: { layout: { type: 'string', description: 'dataset layout', valueName: 'LAYOUT' } },
  async run(ctx) {
    const layout = requireString(ctx, 'layout');
    const path = ctx.positionals[0];
    if (!path) throw new UsageError('give the PATH to check');
    if (layout === 'promptriever') {
      let n = 0;
      let withInstruction = 0;
      for await (const s of readPromptriever(path)) {
        n++;
        if (s.hasInstruction) withInstruction++;
      }
      ctx.stdout.write(`${path}: ${n} seed examples (${withInstruction} with an instruction)\n`);
      return 0;
    }
    const load = (LAYOUTS as Record<string, (dir: string) => Promise<InstructedSet>>)[layout];
    if (!load)
      throw new UsageError(
        `unknown layout '${layout}'; one of: ${[...Object.keys(LAYOUTS), 'promptriever'].join(', ')}`,
      );
    const set = await load(path);
    const modes = Object.entries(set.qrels).map(
      ([m, q]) => `${m} ${[...q.values()].reduce((n, d) => n + d.size, 0)} qrels`,
    );
    ctx.stdout.write(
      `${set.name}: ${set.corpus.length} documents, ${set.queries.length} queries; ${modes.join(', ')}${set.candidates ? `; candidates for ${set.candidates.size} queries` : ''}\n`,
    );
    return 0;
  },
});
