/** `dv synth merge`: the output folders of a sharded run merged by content key (@dv/synth `mergeShards`). */
import { guardOutputDir } from '@dv/core';
import { mergeShards } from '@dv/synth';
import { defineCommand, requireString, UsageError } from '../cli-kit.js';
import { formatSummary } from '../synth/format-summary.js';

export const synthMergeCommand = defineCommand({
  name: 'merge',
  summary: 'merge the output folders of a sharded run by content key',
  usage: '--seeds FILE --out DIR SHARD_DIR...',
  allowPositionals: true,
  options: {
    seeds: { type: 'string', description: 'the seed file all shards read', valueName: 'FILE' },
    out: { type: 'string', description: 'merged output folder', valueName: 'DIR' },
  },
  async run(ctx) {
    if (ctx.positionals.length === 0) throw new UsageError('give the shard folders to merge');
    const seedsPath = requireString(ctx, 'seeds');
    const s = await mergeShards({
      seedsPath,
      outDir: guardOutputDir(requireString(ctx, 'out')),
      shardDirs: ctx.positionals,
      command: ctx.commandLine,
    });
    ctx.stdout.write(formatSummary(s));
    if (s.pending > 0) ctx.stderr.write(`warning: ${s.pending} seeds have no record in any shard\n`);
    return 0;
  },
});
