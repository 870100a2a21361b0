/**
 * Guardrails on a synthesized instruction I', each rejection with a named reason (the
 * paper's Appendix A checklist, made mechanical):
 * - `empty`: nothing left after trimming;
 * - `too-many-sentences`: more than `maxSentences` (2) sentences;
 * - `copies-original`: token Jaccard overlap with the original instruction >= `maxOverlap`
 *   (0.7), i.e. a copy or a few swapped words;
 * - `mentions-passage-id`: contains a docid of the seed's passages;
 * - `edits-query`: the answer rewrites the query (a `<new_query>` differing from q, or a
 *   "query:" restatement inside I');
 * - `meta-language`: talks about the task ("passage", "document", "negative", "query"...;
 *   words of the query itself are allowed).
 * Checks run in that order; the first failing one is the reason.
 */

export const GuardrailReason = [
  'empty',
  'too-many-sentences',
  'copies-original',
  'mentions-passage-id',
  'edits-query',
  'meta-language',
] as const;
export type GuardrailReason = (typeof GuardrailReason)[number];

export interface GuardrailOptions {
  maxSentences?: number;
  /** Jaccard overlap of lower-cased word tokens at or above which I' counts as a copy. */
  maxOverlap?: number;
}

export interface GuardrailInput {
  newInstruction: string;
  originalInstruction: string;
  query: string;
  /** A query the model wrote back, if its answer contained one. */
  answeredQuery?: string;
  docids: string[];
}

export type GuardrailResult = { ok: true } | { ok: false; reason: GuardrailReason; detail: string };

const META_WORDS =
  /\b(passages?|documents?|docs?|negatives?|positives?|instructions?|quer(?:y|ies)|labels?|relevance judg(?:e)?ments?|docids?|target text)\b/i;

/**
 * The first meta-task word in `text` ("passage", "document", "negative"...), or null. Words of
 * the query itself are allowed: I' may name a query about documents or passages.
 */
export function metaWord(text: string, query = ''): string | null {
  const q = new Set(tokens(query));
  const re = new RegExp(META_WORDS.source, 'gi');
  for (const m of text.matchAll(re)) if (!m[0].split(/\s+/).every((w) => q.has(w.toLowerCase()))) return m[0];
  return null;
}

export function tokens(s: string): string[] {
  return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function jaccard(a: string, b: string): number {
  const sa = new Set(tokens(a));
  const sb = new Set(tokens(b));
  if (sa.size === 0 && sb.size === 0) return 1;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** Sentences: split after . ! ? followed by space/end, ignoring common abbreviations and decimals. */
export function countSentences(s: string): number {
  const cleaned = s
    .replace(/\b(e\.g|i\.e|etc|vs|approx|incl|cf|Mr|Mrs|Dr|St|No)\./gi, '$1')
    .replace(/(\d)\.(\d)/g, '$1$2')
    .trim();
  if (cleaned === '') return 0;
  return cleaned.split(/[.!?]+(?:\s+|$)/).filter((x) => x.trim().length > 0).length;
}

export function checkGuardrails(input: GuardrailInput, options: GuardrailOptions = {}): GuardrailResult {
  const maxSentences = options.maxSentences ?? 2;
  const maxOverlap = options.maxOverlap ?? 0.7;
  const text = input.newInstruction.trim();
  if (text === '') return { ok: false, reason: 'empty', detail: 'no text' };
  const n = countSentences(text);
  if (n > maxSentences)
    return { ok: false, reason: 'too-many-sentences', detail: `${n} sentences > ${maxSentences}` };
  const overlap = jaccard(text, input.originalInstruction);
  if (overlap >= maxOverlap)
    return {
      ok: false,
      reason: 'copies-original',
      detail: `token overlap ${overlap.toFixed(2)} >= ${maxOverlap}`,
    };
  const lower = text.toLowerCase();
  for (const id of input.docids) {
    if (id.length >= 2 && mentionsId(lower, id.toLowerCase()))
      return { ok: false, reason: 'mentions-passage-id', detail: `mentions ${JSON.stringify(id)}` };
  }
  if (input.answeredQuery !== undefined && input.answeredQuery.trim() !== input.query.trim())
    return {
      ok: false,
      reason: 'edits-query',
      detail: `rewrote the query as ${JSON.stringify(input.answeredQuery)}`,
    };
  if (/^\s*(search|query|q)\s*:/i.test(text))
    return { ok: false, reason: 'edits-query', detail: 'restates a query' };
  const meta = metaWord(text, input.query);
  if (meta) return { ok: false, reason: 'meta-language', detail: `uses ${JSON.stringify(meta)}` };
  return { ok: true };
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether `id` occurs in `text` as a whole token (not inside a longer word or number). */
function mentionsId(text: string, id: string): boolean {
  for (let i = text.indexOf(id); i !== -1; i = text.indexOf(id, i + 1)) {
    const before = i === 0 ? '' : text[i - 1]!;
    const after = text[i + id.length] ?? '';
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
  }
  return false;
}
