/**
 * The one number parser of the CLI and the wording of its messages ("--limit must be a positive
 * integer, got '2.5'"): a flag's message names the flag, the expected kind and range, and what
 * was given. The ranges of schema flags come from their zod checks (schema-flags.ts).
 */
import { UsageError } from './usage-error.js';

export interface NumberSpec {
  /** Whole numbers only. */
  integer?: boolean;
  /** Inclusive lower bound. */
  min?: number;
  /** Inclusive upper bound. */
  max?: number;
  /** Exclusive lower bound 0 ("positive"). */
  positive?: boolean;
}

/** "a positive integer", "a number from 0 to 1", ... for messages. */
export function describeNumber(spec: NumberSpec): string {
  const kind = spec.integer ? 'integer' : 'number';
  if (spec.positive && spec.max === undefined) return `a positive ${kind}`;
  if (spec.min !== undefined && spec.max !== undefined)
    return `${spec.integer ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}`;
  if (spec.min === 0) return `a non-negative ${kind}`;
  if (spec.min !== undefined) return `${spec.integer ? 'an integer' : 'a number'} >= ${spec.min}`;
  if (spec.max !== undefined) return `${spec.integer ? 'an integer' : 'a number'} <= ${spec.max}`;
  return spec.integer ? 'an integer' : 'a number';
}

/**
 * `raw` as given to `--flag`, checked against `spec`.
 * Throws a UsageError such as "--limit must be a positive integer, got '2.5'".
 */
export function parseNumber(raw: string, flag: string, spec: NumberSpec = {}): number {
  const n = raw.trim() === '' ? Number.NaN : Number(raw);
  const ok =
    Number.isFinite(n) &&
    (!spec.integer || Number.isInteger(n)) &&
    (!spec.positive || n > 0) &&
    (spec.min === undefined || n >= spec.min) &&
    (spec.max === undefined || n <= spec.max);
  if (!ok) throw new UsageError(`--${flag} must be ${describeNumber(spec)}, got '${raw}'`);
  return n;
}
