/**
 * Writes small parquet files for tests with hyparquet-writer, in the layout Hugging Face
 * datasets (Arrow) produce: optional UTF8 strings, and LIST<STRUCT<...>> for passage lists
 * (`list` / `element` groups), so loaders are tested on the real nested format.
 */
import { parquetWriteFile } from 'hyparquet-writer';

export type ColumnKind =
  | 'string'
  | 'bool'
  | 'double'
  | 'int64'
  | 'stringList'
  | { struct: Record<string, 'string' | 'double'> };

type SchemaElement = Record<string, unknown>;

function leaf(name: string, kind: 'string' | 'double' | 'bool' | 'int64'): SchemaElement {
  const type = { string: 'BYTE_ARRAY', double: 'DOUBLE', bool: 'BOOLEAN', int64: 'INT64' }[kind];
  return {
    name,
    type,
    repetition_type: 'OPTIONAL',
    ...(kind === 'string' ? { converted_type: 'UTF8' } : {}),
  };
}

/** `columns` maps column name -> kind; a `{struct}` kind is a list of structs. */
export function writeParquetFixture(
  path: string,
  columns: Record<string, ColumnKind>,
  rows: Array<Record<string, unknown>>,
  rowGroupSize?: number,
): void {
  const schema: SchemaElement[] = [{ name: 'root', num_children: Object.keys(columns).length }];
  for (const [name, kind] of Object.entries(columns)) {
    if (typeof kind === 'string' && kind !== 'stringList') schema.push(leaf(name, kind));
    else if (kind === 'stringList') {
      schema.push({ name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 });
      schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      schema.push(leaf('element', 'string'));
    } else {
      const fields = Object.entries(kind.struct);
      schema.push({ name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 });
      schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      schema.push({ name: 'element', repetition_type: 'OPTIONAL', num_children: fields.length });
      for (const [f, k] of fields) schema.push(leaf(f, k));
    }
  }
  parquetWriteFile({
    filename: path,
    columnData: Object.keys(columns).map((name) => ({
      name,
      data: rows.map((r) => {
        const v = r[name];
        return columns[name] === 'int64' && typeof v === 'number' ? BigInt(v) : (v ?? null);
      }),
    })),
    // biome-ignore lint/suspicious/noExplicitAny: hyparquet-writer's SchemaElement type is not exported from its entry.
    schema: schema as any,
    ...(rowGroupSize ? { rowGroupSize } : {}),
  });
}
