/**
 * The first pass over the seed file: reads and validates every seed once (bad lines and
 * duplicate ids fail fast, before anything is spent) and returns the ids this run processes:
 * those of the shard, at most `limit` of them, in file order.
 */
import { existsSync } from 'node:fs';
import { DataError, readJsonl, SeedExample, type ShardSpec } from '@dv/core';
import { inShard } from '../synthesis-task.js';

export async function scanSeeds(path: string, shard?: ShardSpec, limit?: number): Promise<string[]> {
  if (!existsSync(path)) throw new DataError('seed file not found', path);
  const ids: string[] = [];
  let any = false;
  for await (const s of readJsonl(path, SeedExample, { uniqueBy: (r) => r.id })) {
    any = true;
    if (!inShard(s.id, shard)) continue;
    if (limit !== undefined && ids.length >= limit) break;
    ids.push(s.id);
  }
  if (!any) throw new DataError('the seed file holds no seeds', path);
  return ids;
}
