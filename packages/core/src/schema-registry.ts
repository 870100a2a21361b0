/**
 * Named record schemas for tools that validate files by name (`dv validate --schema NAME`).
 * Each entry says which field must be unique within a file, if any.
 */
import type { z } from 'zod';
import { BenchmarkDefinition } from './schemas/benchmark.js';
import { EvaluationResult } from './schemas/evaluation-result.js';
import { Passage } from './schemas/passage.js';
import { Qrel, RunEntry } from './schemas/qrels.js';
import { Query } from './schemas/query.js';
import { SeedExample } from './schemas/seed-example.js';
import { SynthesisRecord, SynthesisRequest } from './schemas/synthesis.js';
import { DualViewExample, TrainingExample } from './schemas/training-example.js';

export interface RecordSchemaEntry {
  readonly schema: z.ZodType;
  readonly uniqueField?: string;
  readonly description: string;
}

export const recordSchemas = Object.freeze({
  passage: { schema: Passage, uniqueField: 'docid', description: 'corpus passage / document' },
  query: { schema: Query, uniqueField: 'id', description: 'query with optional instruction' },
  'seed-example': {
    schema: SeedExample,
    uniqueField: 'id',
    description: 'seed instance (q, I, D+, D-, hard negatives)',
  },
  'synthesis-request': { schema: SynthesisRequest, uniqueField: 'key', description: 'one synthesis call' },
  'synthesis-record': { schema: SynthesisRecord, uniqueField: 'key', description: 'one synthesis outcome' },
  'training-example': {
    schema: TrainingExample,
    uniqueField: 'id',
    description: 'training example (one view)',
  },
  'dual-view-example': {
    schema: DualViewExample,
    uniqueField: 'id',
    description: 'complementary view of a seed',
  },
  qrel: { schema: Qrel, description: 'relevance judgement' },
  'run-entry': { schema: RunEntry, description: 'retrieval run entry' },
  'evaluation-result': { schema: EvaluationResult, description: 'evaluation result' },
  'benchmark-definition': {
    schema: BenchmarkDefinition,
    uniqueField: 'name',
    description: 'benchmark definition',
  },
} as const satisfies Record<string, RecordSchemaEntry>);

export type RecordSchemaName = keyof typeof recordSchemas;
