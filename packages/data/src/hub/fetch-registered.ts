/**
 * Fetching a registered Hub dataset (see hub-datasets.ts) at its pinned revision. An entry
 * without a pin needs an explicit `revision`; a moving branch is never used silently.
 */
import { DataError } from '@dv/core';
import { type DownloadedDataset, downloadDataset, type HubOptions } from './hub-client.js';
import { HUB_DATASETS, type HubDatasetEntry } from './hub-datasets.js';

export function hubDatasetEntry(name: string): HubDatasetEntry {
  const entry = (HUB_DATASETS as Record<string, HubDatasetEntry>)[name];
  if (!entry)
    throw new DataError(`unknown dataset "${name}"; registered: ${Object.keys(HUB_DATASETS).join(', ')}`);
  return entry;
}

export async function fetchRegisteredDataset(
  name: string,
  options: HubOptions & { revision?: string; include?: readonly string[] } = {},
): Promise<DownloadedDataset & { entry: HubDatasetEntry }> {
  const entry = hubDatasetEntry(name);
  const revision = options.revision ?? entry.revision;
  if (!revision) {
    throw new DataError(
      `dataset "${name}" (${entry.repo}) has no pinned revision: pass one explicitly (${entry.note})`,
    );
  }
  const include = options.include ?? entry.include;
  const got = await downloadDataset(entry.repo, revision, { ...options, ...(include ? { include } : {}) });
  return { ...got, entry };
}
