/**
 * Robust parsing of the model's XML answer.
 *
 * Contract: `<answer><new_instruction>I'</new_instruction></answer>` or `<answer>None</answer>`.
 * Tolerated: prose around the block, markdown code fences, `<think>...</think>` reasoning,
 * CDATA and XML entities, several answers (the LAST complete one wins: models often draft, then
 * correct themselves), a bare `<new_instruction>` without the `<answer>` wrapper, and a bare
 * `None` reply. Anything else is `unparsable` with a reason; the caller keeps the raw text.
 */

export type ParsedAnswer =
  | {
      kind: 'instruction';
      text: string;
      /**
       * A query the model added, if any: the last `<query>` block of the answer, else its last
       * `<new_query>` (a `<query>` wins over a `<new_query>` wherever each stands), XML-decoded and
       * trimmed.
       */
      query?: string;
    }
  | { kind: 'none' }
  | { kind: 'unparsable'; reason: string };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(s: string): string {
  const cdata = s.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_m, inner: string) => inner);
  return cdata.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? _m;
  });
}

/** Inner texts of every complete `<tag ...>...</tag>` (non-greedy, case-insensitive). */
function blocks(text: string, tag: string): string[] {
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}\\s*>`, 'gi');
  return [...text.matchAll(re)].map((m) => m[1] ?? '');
}

function isNone(s: string): boolean {
  return /^[\s"'`*]*none[\s.!"'`*]*$/i.test(s);
}

function fromBlock(inner: string): ParsedAnswer | null {
  const instr = blocks(inner, 'new_instruction');
  const query = blocks(inner, 'new_query').concat(blocks(inner, 'query')).at(-1);
  if (instr.length > 0) {
    const text = decodeXml(instr.at(-1)!).replace(/\s+/g, ' ').trim();
    if (isNone(text)) return { kind: 'none' };
    return query === undefined
      ? { kind: 'instruction', text }
      : { kind: 'instruction', text, query: decodeXml(query).trim() };
  }
  if (isNone(decodeXml(inner))) return { kind: 'none' };
  return null;
}

export function parseAnswer(raw: string | null | undefined): ParsedAnswer {
  if (raw === null || raw === undefined || raw.trim() === '')
    return { kind: 'unparsable', reason: 'empty-response' };
  // Drop reasoning traces and code fences; keep everything else (prose is harmless).
  const text = raw.replace(/<think>[\s\S]*?<\/think>/gi, ' ').replace(/```[a-zA-Z]*\n?/g, ' ');
  const answers = blocks(text, 'answer');
  for (let i = answers.length - 1; i >= 0; i--) {
    const parsed = fromBlock(answers[i]!);
    if (parsed) return parsed;
  }
  if (answers.length === 0) {
    const bare = fromBlock(text);
    if (bare) return bare;
    if (/<answer\b/i.test(text)) return { kind: 'unparsable', reason: 'unclosed-answer' };
    return { kind: 'unparsable', reason: 'no-answer-block' };
  }
  return { kind: 'unparsable', reason: 'answer-without-new-instruction' };
}
