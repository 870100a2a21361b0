/**
 * Streaming JSONL with validation at the edge: every line is parsed and checked against a zod
 * schema, and any problem is a `DataError` naming `file:line`. Blank lines are skipped.
 *
 * Writers: `writeJsonl` is atomic (temp + rename); `JsonlAppender` (append-only, one write per
 * record) is for resumable jobs, and `readJsonl(..., { allowTruncatedTail: true })` reads such a
 * log back, dropping a last record that a crash cut short.
 */
import type { z } from 'zod';
import { DataError, describeZodIssues } from '../errors.js';
import { writeAtomic } from './atomic-write.js';
import { InvalidUtf8Error, type Line, readLines } from './lines.js';

export interface ReadJsonlOptions<T> {
  /** Key that must be unique across the file, e.g. `(r) => r.id`. */
  uniqueBy?: (record: T) => string;
  /** Name of the unique key for error messages (default "id"). */
  uniqueName?: string;
  /** Tolerate an unterminated, unparsable last line (a crash mid-append). */
  allowTruncatedTail?: boolean;
}

export interface JsonlRecord<T> {
  value: T;
  line: number;
}

/** One parsed line of a JSONL file, before any schema. */
export interface JsonLine {
  value: unknown;
  /** 1-based line number. */
  line: number;
  /** Whether the line ended with a newline (a crash mid-append leaves the last one without). */
  terminated: boolean;
}

export interface ReadJsonLinesOptions {
  /** Stop quietly at an unterminated, unparsable last line (a crash mid-append). */
  allowTruncatedTail?: boolean;
  /** When set, a value that is not a JSON object is a `DataError` "expected <this>". */
  expectObject?: string;
}

/**
 * The one JSONL read loop: blank lines skipped, each other line `JSON.parse`d, a bad line a
 * `DataError` naming `file:line`. Schema checks are the caller's (`readJsonlWithLines`, the
 * benchmark table readers, the training-mix reader).
 */
export async function* readJsonLines(
  path: string,
  options: ReadJsonLinesOptions = {},
): AsyncGenerator<JsonLine> {
  const lines = readLines(path);
  try {
    for (;;) {
      let next: IteratorResult<Line>;
      try {
        next = await lines.next();
      } catch (err) {
        // a crash mid-append can cut the last record inside a multi-byte character
        if (err instanceof InvalidUtf8Error && !err.terminated && options.allowTruncatedTail) return;
        throw err;
      }
      if (next.done) return;
      const line = next.value;
      if (line.text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch (err) {
        if (!line.terminated && options.allowTruncatedTail) return;
        throw new DataError(`invalid JSON: ${(err as Error).message}`, path, line.number);
      }
      if (
        options.expectObject !== undefined &&
        (value === null || typeof value !== 'object' || Array.isArray(value))
      )
        throw new DataError(`expected ${options.expectObject}`, path, line.number);
      yield { value, line: line.number, terminated: line.terminated };
    }
  } finally {
    await lines.return(undefined); // an early stop by the consumer closes the file
  }
}

export async function* readJsonlWithLines<S extends z.ZodType>(
  path: string,
  schema: S,
  options: ReadJsonlOptions<z.infer<S>> = {},
): AsyncGenerator<JsonlRecord<z.infer<S>>> {
  const seen = options.uniqueBy ? new Map<string, number>() : undefined;
  for await (const line of readJsonLines(path, { allowTruncatedTail: options.allowTruncatedTail })) {
    const parsed = schema.safeParse(line.value);
    if (!parsed.success) {
      if (!line.terminated && options.allowTruncatedTail) return;
      throw new DataError(describeZodIssues(parsed.error.issues), path, line.line);
    }
    if (seen && options.uniqueBy) {
      const key = options.uniqueBy(parsed.data);
      const first = seen.get(key);
      if (first !== undefined) {
        throw new DataError(
          `duplicate ${options.uniqueName ?? 'id'} ${JSON.stringify(key)} (first seen on line ${first})`,
          path,
          line.line,
        );
      }
      seen.set(key, line.line);
    }
    yield { value: parsed.data, line: line.line };
  }
}

export async function* readJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
  options: ReadJsonlOptions<z.infer<S>> = {},
): AsyncGenerator<z.infer<S>> {
  for await (const r of readJsonlWithLines(path, schema, options)) yield r.value;
}

export async function readJsonlAll<S extends z.ZodType>(
  path: string,
  schema: S,
  options: ReadJsonlOptions<z.infer<S>> = {},
): Promise<z.infer<S>[]> {
  const out: z.infer<S>[] = [];
  for await (const r of readJsonl(path, schema, options)) out.push(r);
  return out;
}

/** Serialises one record; when a schema is given the record is validated first. */
export function toJsonLine<S extends z.ZodType>(
  record: z.input<S> | z.infer<S>,
  schema?: S,
  where = 'record',
): string {
  let value: unknown = record;
  if (schema) {
    const parsed = schema.safeParse(record);
    if (!parsed.success) throw new DataError(`${where}: ${describeZodIssues(parsed.error.issues)}`);
    value = parsed.data;
  }
  return `${JSON.stringify(value)}\n`;
}

/** Writes all records atomically: the target holds either all of them or its old content. */
export async function writeJsonl<S extends z.ZodType>(
  path: string,
  records: Iterable<z.input<S>> | AsyncIterable<z.input<S>>,
  schema?: S,
): Promise<number> {
  let n = 0;
  await writeAtomic(path, async (write) => {
    for await (const r of records) {
      write(toJsonLine(r, schema, `${path}: record ${n + 1}`));
      n++;
    }
  });
  return n;
}
