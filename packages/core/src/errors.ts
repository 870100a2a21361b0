/**
 * Errors about user data. `DataError` always names where the problem is (`file:line: what`),
 * so a user can open the file at that line; the CLI prints its message and exits non-zero.
 */
export class DataError extends Error {
  override readonly name = 'DataError';
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file === undefined ? message : `${file}${line === undefined ? '' : `:${line}`}: ${message}`);
  }
}

/** One line per zod issue: `path: message`, or just the message at the root. */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}
