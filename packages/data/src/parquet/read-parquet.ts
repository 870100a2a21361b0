/**
 * Parquet reading through hyparquet (a maintained pure-JS reader; snappy built in, which is what
 * Hugging Face datasets write) with hyparquet-compressors for the other codecs parquet files on
 * the Hub use (GZIP, ZSTD, BROTLI, LZ4, LZ4_RAW): whole-file rows for small tables, and row-group streaming for
 * large ones (Promptriever's ~980k rows). Nested columns (lists of structs such as
 * `positive_passages`) come back as plain JS values. Errors are `DataError`s naming the file.
 */
import { existsSync } from 'node:fs';
import { DataError } from '@dv/core';
import {
  asyncBufferFromFile,
  type FileMetaData,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

async function open(path: string) {
  if (!existsSync(path)) throw new DataError('file not found', path);
  const file = await asyncBufferFromFile(path);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (err) {
    throw new DataError(`not a readable parquet file: ${(err as Error).message}`, path);
  }
  return { file, metadata };
}

/** Top-level column names of a parquet file. */
export async function parquetColumns(path: string): Promise<string[]> {
  const { metadata } = await open(path);
  return parquetSchema(metadata).children.map((c) => c.element.name);
}

/** Number of rows in a parquet file (from its footer). */
export async function parquetRowCount(path: string): Promise<number> {
  const { metadata } = await open(path);
  return Number(metadata.num_rows);
}

/** All rows as objects. */
export async function readParquetRows(path: string, columns?: string[]): Promise<Record<string, unknown>[]> {
  const { file, metadata } = await open(path);
  try {
    return (await parquetReadObjects({ file, metadata, columns, compressors })) as Record<string, unknown>[];
  } catch (err) {
    throw new DataError(`cannot read parquet rows: ${(err as Error).message}`, path);
  }
}

/** Rows streamed one row group at a time, with their 1-based row numbers. */
export async function* streamParquetRows(
  path: string,
  columns?: string[],
): AsyncGenerator<{ row: Record<string, unknown>; number: number }> {
  const { file, metadata } = await open(path);
  let start = 0;
  for (const rg of metadata.row_groups) {
    const n = Number(rg.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = (await parquetReadObjects({
        file,
        metadata,
        columns,
        compressors,
        rowStart: start,
        rowEnd: start + n,
      })) as Record<string, unknown>[];
    } catch (err) {
      throw new DataError(
        `cannot read parquet rows ${start + 1}-${start + n}: ${(err as Error).message}`,
        path,
      );
    }
    for (let i = 0; i < rows.length; i++) yield { row: rows[i]!, number: start + i + 1 };
    start += n;
  }
}
