/**
 * A word-matching baseline for instruction-following benchmarks (issue 26): can a benchmark be
 * passed with no model of meaning at all? The rule re-ranks a first-stage ranking of the
 * original instruction (BM25's og run) for the changed instruction, from the words the change
 * adds and whether the added text is negative:
 *
 *   added text = what the changed instruction adds: the part after the original instruction
 *               when it extends it (FollowIR's changes append a sentence), else all of it
 *   added      = content words (>= 3 letters, not stop words) of the added text that the
 *               original instruction does not have, less those in more than half of the query's
 *               ranked documents (a word every candidate has says nothing about any)
 *   negative   = the added text has a negation cue ("not", "no", "exclude", "without",
 *               "except", "avoid", ...)
 *   changed run: score'(d) = score_og(d) - B  if d contains an added word and negative
 *                          = score_og(d) + B  if d contains an added word and not negative
 *                          = score_og(d)      otherwise       (B larger than any score gap)
 *
 * It never reads qrels or benchmark metadata, only the two instruction texts and the documents.
 * A benchmark where this rule scores far above BM25 rewards word matching, not instruction
 * following; the topics where it changes nothing are where a model's p-MRR owes nothing to it.
 */
import type { InstructedSet, Run } from '@dv/core';

const STOP = new Set(
  'the and for are but not you your with that this from have has had was were will would can could should about into than then them they their there these those what which who whom whose when where why how all any both each few more most other some such only own same too very just also any one ones its his her our out off over under again further once here doc docs document documents relevant relevance query queries text texts page pages must may might shall being been does did doing done are is was about'.split(
    ' ',
  ),
);
const NEGATION =
  /\b(not|no|none|never|nothing|neither|nor|without|except|excluding|exclude|excludes|excluded|avoid|avoids|ignore|ignoring|irrelevant|isn't|aren't|doesn't|don't|won't|cannot|can't|unless|rather than|instead of|other than)\b/;

/** Content words of a text, lower-cased (letters only, >= 3 characters, no stop words). */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) if (w.length >= 3 && !STOP.has(w)) out.add(w);
  return out;
}

/** The text the changed instruction adds to the original (its tail when it extends it). */
export function addedText(og: string, changed: string): string {
  const a = og.trim();
  const b = changed.trim();
  return b.startsWith(a) ? b.slice(a.length) : b;
}

/** The words the changed instruction adds, and whether the added text is phrased negatively. */
export function instructionChange(og: string, changed: string): { added: string[]; negative: boolean } {
  const before = contentWords(og);
  const text = addedText(og, changed);
  const added = [...contentWords(text)].filter((w) => !before.has(w)).sort();
  return { added, negative: NEGATION.test(text.toLowerCase()) };
}

/**
 * The rule's runs: `og` as given, `changed` re-ranked from `og` by the rule above. `runs.og`
 * is the first-stage run of the original instruction; documents come from `set.corpus`.
 */
export function applyLexicalRule(
  set: InstructedSet,
  runs: Partial<Record<'og' | 'changed' | 'reversed', Run>>,
): Partial<Record<'og' | 'changed' | 'reversed', Run>> {
  const og = runs.og;
  if (!og) throw new Error(`${set.name}: the lexical rule needs the og run`);
  const words = new Map(set.corpus.map((p) => [p.docid, contentWords(`${p.title ?? ''} ${p.text}`)]));
  const changed: Run = new Map();
  for (const q of set.queries) {
    const row = og.get(q.id);
    const ogText = q.instructions.og;
    const chText = q.instructions.changed;
    if (!row || ogText == null || chText == null) continue;
    const change = instructionChange(ogText, chText);
    const df = (w: string) => [...row.keys()].filter((d) => words.get(d)?.has(w)).length;
    const added = change.added.filter((w) => df(w) <= row.size / 2);
    const negative = change.negative;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const s of row.values()) {
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    const bump = Number.isFinite(hi - lo) ? 1 + 2 * (hi - lo) : 1;
    const out = new Map<string, number>();
    for (const [docid, s] of row) {
      const doc = words.get(docid);
      const hit = added.length > 0 && doc !== undefined && added.some((w) => doc.has(w));
      out.set(docid, hit ? s + (negative ? -bump : bump) : s);
    }
    changed.set(q.id, out);
  }
  return { ...runs, changed };
}
