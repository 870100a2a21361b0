/** The error of a bad command line: `runCommand` prints it as one line and exits 2 (`EXIT.usage`). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
