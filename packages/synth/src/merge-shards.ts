/**
 * Merges the output folders of a sharded run (`--shard i/n`) by content key: the union of
 * their journals (a key found twice keeps the better status: accepted > none > rejected >
 * failed), checked for one template version and model, then finalized over the whole seed
 * file. Seeds no shard recorded are reported as pending.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DataError,
  SynthesisRecord as RecordSchema,
  readJsonl,
  SeedExample,
  type SynthesisRecord,
  writeJsonl,
} from '@dv/core';
import { finalizeRun, OUTPUT_FILES, type RunInfo, type RunSummary } from './finalize-run.js';
import { LOG_FILE, readJournal } from './run-synthesis.js';
import { prepareTask } from './synthesis-task.js';
import { getTemplate } from './template-registry.js';

const RANK: Record<SynthesisRecord['status'], number> = { accepted: 3, none: 2, rejected: 1, failed: 0 };

export interface MergeOptions {
  seedsPath: string;
  shardDirs: string[];
  outDir: string;
  command?: string[];
}

export async function mergeShards(o: MergeOptions): Promise<RunSummary> {
  if (o.shardDirs.length === 0) throw new DataError('give at least one shard folder to merge');
  const merged = new Map<string, SynthesisRecord>();
  let info: RunInfo | undefined;
  for (const dir of o.shardDirs) {
    const summaryPath = join(dir, OUTPUT_FILES.summary);
    if (!existsSync(summaryPath)) throw new DataError('not a finished synth folder (no summary.json)', dir);
    const run = (JSON.parse(readFileSync(summaryPath, 'utf8')) as { run: RunInfo }).run;
    if (!info) info = run;
    for (const k of ['templateId', 'templateVersion', 'model', 'temperature', 'maxTokens'] as const) {
      if (run[k] !== info[k])
        throw new DataError(
          `shard ${k} ${JSON.stringify(run[k])} differs from ${JSON.stringify(info[k])}`,
          summaryPath,
        );
    }
    for (const [key, r] of await readJournal(join(dir, LOG_FILE))) {
      const prev = merged.get(key);
      if (!prev || RANK[r.status] > RANK[prev.status]) merged.set(key, r);
    }
  }
  const template = getTemplate(info!.templateId);
  if (template.version !== info!.templateVersion)
    throw new DataError(
      `shards used ${info!.templateId}@${info!.templateVersion}, this build has @${template.version}; keys would not match`,
    );
  const settings = {
    template,
    model: info!.model,
    temperature: info!.temperature,
    maxTokens: info!.maxTokens,
  };
  const ids = new Set<string>();
  for await (const s of readJsonl(o.seedsPath, SeedExample, { uniqueBy: (r) => r.id })) ids.add(s.id);
  await writeJsonl(join(o.outDir, LOG_FILE), merged.values(), RecordSchema);
  return finalizeRun({
    seedsPath: o.seedsPath,
    outDir: o.outDir,
    seedIds: ids,
    journal: merged,
    keyFor: (seed) => {
      const p = prepareTask(seed, settings);
      return p.ok ? p.task.key : p.key;
    },
    run: { ...info!, shard: null, stoppedBy: null, usage: null, mergedFrom: o.shardDirs },
    config: { merge: o.shardDirs },
    ...(o.command ? { command: o.command } : {}),
  });
}
