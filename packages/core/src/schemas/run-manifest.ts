/**
 * The manifest written next to every result: enough to tell whether two results are
 * comparable (formatter, template version, dataset revisions, seeds) and to rerun them.
 * Secrets are redacted before a manifest is written (see `redact.ts`).
 */
import { z } from 'zod';
import { FormatterSettings } from './formatter-settings.js';

export const FileDigest = z.object({
  path: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
});
export type FileDigest = z.infer<typeof FileDigest>;

export const RunManifest = z.object({
  schemaVersion: z.literal(1),
  kind: z.string().min(1),
  createdAt: z.string(),
  command: z.array(z.string()).optional(),
  gitCommit: z.string().nullable(),
  gitDirty: z.boolean().nullable(),
  node: z.string(),
  platform: z.string(),
  packages: z.record(z.string(), z.string()),
  config: z.unknown(),
  formatter: FormatterSettings.optional(),
  templateVersion: z.string().optional(),
  datasetRevisions: z.record(z.string(), z.string()).default({}),
  seeds: z.array(z.number().int()).default([]),
  timings: z.record(z.string(), z.number()).default({}),
  inputs: z.array(FileDigest).default([]),
  outputs: z.array(FileDigest).default([]),
  notes: z.array(z.string()).default([]),
});
export type RunManifest = z.infer<typeof RunManifest>;
