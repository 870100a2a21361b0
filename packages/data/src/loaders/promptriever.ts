/**
 * Promptriever's seed data (`samaya-ai/msmarco-w-instructions`, ~980k rows, parquet or JSONL)
 * streamed into `SeedExample`s, lossless for the fields we use:
 *   query_id -> id              only_query -> query          only_instruction -> instruction.text
 *   query -> combinedQuery      has_instruction -> hasInstruction
 *   positive_passages -> positives (D+ = positives[0])
 *   new_negatives -> instructionNegatives (explanation, followir_score, joint_id kept)
 *   negative_passages -> hardNegatives
 * Unknown passage fields go to `extra`, unknown row fields to `metadata`. Missing columns,
 * malformed rows and duplicate ids are `DataError`s naming the file and row.
 */
import { DataError, describeZodIssues, type InstructionNegative, type Passage, SeedExample } from '@dv/core';
import { z } from 'zod';
import { IdValue, readTableRows } from '../internal/table-rows.js';
import { parquetColumns, streamParquetRows } from '../parquet/read-parquet.js';

export const PROMPTRIEVER_COLUMNS = [
  'query_id',
  'query',
  'only_query',
  'only_instruction',
  'has_instruction',
  'positive_passages',
  'negative_passages',
  'new_negatives',
] as const;

const PassageRow = z.object({ docid: IdValue, title: z.string().nullish(), text: z.string() }).passthrough();
const NewNegativeRow = PassageRow.extend({
  explanation: z.string().nullish(),
  followir_score: z.number().nullish(),
  joint_id: IdValue.nullish(),
});
const Row = z
  .object({
    query_id: IdValue,
    query: z.string().nullish(),
    only_query: z.string(),
    only_instruction: z.string().nullish(),
    has_instruction: z.boolean().nullish(),
    positive_passages: z.array(PassageRow),
    negative_passages: z.array(PassageRow).nullish(),
    new_negatives: z.array(NewNegativeRow).nullish(),
  })
  .passthrough();

export interface PromptrieverOptions {
  dataset?: string;
  revision?: string;
  /** Stop after this many rows (for samples). */
  limit?: number;
}

function passage(p: z.infer<typeof PassageRow>): Passage {
  const { docid, title, text, ...rest } = p;
  return { docid, title: title ?? '', text, ...(Object.keys(rest).length > 0 ? { extra: rest } : {}) };
}

function newNegative(p: z.infer<typeof NewNegativeRow>): InstructionNegative {
  const { docid, title, text, explanation, followir_score, joint_id, ...rest } = p;
  return {
    docid,
    title: title ?? '',
    text,
    ...(explanation != null ? { explanation } : {}),
    ...(followir_score != null ? { followirScore: followir_score } : {}),
    ...(joint_id != null ? { jointId: joint_id } : {}),
    ...(Object.keys(rest).length > 0 ? { extra: rest } : {}),
  };
}

/** One Promptriever row as a SeedExample (validated); `row` is its 1-based number for errors. */
export function promptrieverRowToSeed(
  value: Record<string, unknown>,
  where: { file: string; row: number },
  options: PromptrieverOptions = {},
): SeedExample {
  const parsed = Row.safeParse(value);
  if (!parsed.success) throw new DataError(describeZodIssues(parsed.error.issues), where.file, where.row);
  const r = parsed.data;
  const {
    query_id,
    query,
    only_query,
    only_instruction,
    has_instruction,
    positive_passages,
    negative_passages,
    new_negatives,
    ...rest
  } = r;
  const seed = SeedExample.safeParse({
    id: query_id,
    query: only_query,
    instruction: { text: only_instruction ?? '' },
    positives: positive_passages.map(passage),
    instructionNegatives: (new_negatives ?? []).map(newNegative),
    hardNegatives: (negative_passages ?? []).map(passage),
    ...(query != null ? { combinedQuery: query } : {}),
    hasInstruction: has_instruction ?? (only_instruction ?? '') !== '',
    source: {
      dataset: options.dataset ?? 'samaya-ai/msmarco-w-instructions',
      ...(options.revision ? { revision: options.revision } : {}),
      row: where.row,
    },
    ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
  });
  if (!seed.success) throw new DataError(describeZodIssues(seed.error.issues), where.file, where.row);
  return seed.data;
}

/** Streams SeedExamples from Promptriever parquet or JSONL files, one row group at a time. */
export async function* readPromptriever(
  files: string | string[],
  options: PromptrieverOptions = {},
): AsyncGenerator<SeedExample> {
  const seen = new Map<string, string>();
  let n = 0;
  for (const file of Array.isArray(files) ? files : [files]) {
    let rows: AsyncIterable<{ value: Record<string, unknown>; line: number }>;
    if (file.endsWith('.parquet')) {
      const have = await parquetColumns(file);
      const required = ['query_id', 'only_query', 'positive_passages'];
      const missing = required.filter((c) => !have.includes(c));
      if (missing.length > 0) {
        throw new DataError(`missing columns: ${missing.join(', ')} (have: ${have.join(', ')})`, file);
      }
      rows = (async function* () {
        for await (const r of streamParquetRows(file)) yield { value: r.row, line: r.number };
      })();
    } else {
      rows = readTableRows(file);
    }
    for await (const { value, line } of rows) {
      if (options.limit !== undefined && n >= options.limit) return;
      const seed = promptrieverRowToSeed(value, { file, row: line }, options);
      const first = seen.get(seed.id);
      if (first) throw new DataError(`duplicate query_id "${seed.id}" (first seen at ${first})`, file, line);
      seen.set(seed.id, `${file}:${line}`);
      n++;
      yield seed;
    }
  }
}
