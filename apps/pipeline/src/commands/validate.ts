/** `dv validate --schema NAME FILE...`: checks JSONL files against a core record schema. */
import { readJsonlWithLines, recordSchemas } from '@dv/core';
import { type Command, requireString, UsageError } from '../cli-kit.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check JSONL files against a record schema (file:line errors)',
  usage: '--schema NAME FILE...',
  description: `Validates every line of each JSONL (or .jsonl.gz) file against a @dv/core schema and,
where the schema has an id, that ids are unique. Stops at the first problem with file:line.
Schemas: ${Object.keys(recordSchemas).join(', ')}.`,
  allowPositionals: true,
  options: {
    schema: { type: 'string', description: 'record schema name', valueName: 'NAME' },
  },
  async run(ctx) {
    const name = requireString(ctx, 'schema');
    const entry = (recordSchemas as Record<string, (typeof recordSchemas)[keyof typeof recordSchemas]>)[name];
    if (!entry)
      throw new UsageError(`unknown schema '${name}'; one of: ${Object.keys(recordSchemas).join(', ')}`);
    if (ctx.positionals.length === 0) throw new UsageError('give at least one FILE');
    const field = 'uniqueField' in entry ? entry.uniqueField : undefined;
    for (const file of ctx.positionals) {
      let n = 0;
      for await (const _ of readJsonlWithLines(file, entry.schema, {
        uniqueBy: field ? (r) => String((r as Record<string, unknown>)[field]) : undefined,
        uniqueName: field,
      })) {
        n++;
      }
      ctx.stdout.write(`${file}: ${n} valid ${name} records\n`);
    }
    return 0;
  },
};
