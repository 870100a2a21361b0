/**
 * Secret redaction for what the platform writes *about* a run: manifests' config, error
 * messages, logs, recorded request metadata. Never for data files (corpora, runs, qrels,
 * trainer exports, LLM answers): those are written byte for byte, so a passage "Bearer
 * instruments are securities ..." stays as it is (issue 12 item 2).
 *
 * Two nets, both about configured secrets rather than word shapes: (1) object members whose key
 * names a secret (`apiKey`, `authorization`, `password`, `*_token`...), (2) the literal values
 * of the configured keys: environment variables whose names say KEY / TOKEN / SECRET /
 * PASSWORD, plus any extra values the caller passes (a key read from an unusual variable).
 * Config fields that hold the *name* of a variable (`apiKeyEnv`) are kept.
 */

export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /^(api[-_]?key|x-api-key|secret|client[-_]?secret|password|passwd|authorization|token|access[-_]?token|auth[-_]?token|hf[-_]?token|bearer)$|[-_](api[-_]?key|secret|password|token)$/i;
const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD)/i;

/** Values of secret-looking environment variables (8+ characters, to avoid redacting "1"). */
export function secretValuesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && SECRET_ENV_NAME.test(name) && !/PATH$/i.test(name)) out.push(value);
  }
  // Longest first so a secret that contains another is replaced whole.
  return out.sort((a, b) => b.length - a.length);
}

/** `text` with every configured secret value replaced by `[REDACTED]`. */
export function redactText(text: string, secrets: ReadonlyArray<string> = secretValuesFromEnv()): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A deep copy of `value` with secrets replaced by `[REDACTED]`. */
export function redactSecrets<T>(value: T, secrets: ReadonlyArray<string> = secretValuesFromEnv()): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string')
      return key !== undefined && isSecretKey(key) ? REDACTED : redactText(v, secrets);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
