/**
 * Splits batch request lines into input files within a provider's per-file limits: at most
 * `maxRequests` lines and at most `maxBytes` bytes (UTF-8, newlines included) per file, lines
 * kept whole and in order, each file filled greedily before the next starts. OpenAI's Batch
 * API takes at most 50,000 requests and 200 MB per input file (platform.openai.com docs,
 * "Batch API: rate limits"); those are the defaults of `dv synth batch`.
 *
 * Pure. A single line larger than `maxBytes` cannot be sent at all: a `RangeError` naming its
 * position (1-based) says so instead of producing a file the provider refuses.
 *
 * @example splitBatchLines(['a\n', 'bb\n', 'c\n'], { maxRequests: 2, maxBytes: 5 })
 *   => [['a\n', 'bb\n'], ['c\n']]
 */
export interface BatchFileLimits {
  maxRequests: number;
  maxBytes: number;
}

/** OpenAI's Batch API input limits. */
export const OPENAI_BATCH_LIMITS: BatchFileLimits = Object.freeze({
  maxRequests: 50_000,
  maxBytes: 200 * 1024 * 1024,
});

export function splitBatchLines(lines: readonly string[], limits: BatchFileLimits): string[][] {
  if (!(limits.maxRequests >= 1) || !(limits.maxBytes >= 1))
    throw new RangeError(
      `batch file limits must be positive, got ${limits.maxRequests} requests / ${limits.maxBytes} bytes`,
    );
  const files: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  lines.forEach((line, i) => {
    const n = Buffer.byteLength(line, 'utf8');
    if (n > limits.maxBytes)
      throw new RangeError(
        `batch request ${i + 1} is ${n} bytes, over the per-file limit of ${limits.maxBytes}`,
      );
    if (current.length > 0 && (current.length >= limits.maxRequests || bytes + n > limits.maxBytes)) {
      files.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += n;
  });
  if (current.length > 0) files.push(current);
  return files;
}
