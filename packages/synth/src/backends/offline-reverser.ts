/**
 * The offline reverser: a deterministic stand-in for the LLM that does what the prompt asks
 * with the attributes it can read (no network, no model).
 *
 * Method (the prompt's, made mechanical): profile D+ (positive), D- (target) and the other
 * instruction negatives from `Passage.metadata` (`DocAttributes`: category, hypernyms nearest
 * first, topic/region/usage domains, hasExample, wordCount) and from the text (timeframe words,
 * distinctive keywords, length); then take the first lever, in this order, whose value D- has
 * and neither D+ nor any other negative has, as a reader of their text and attributes would
 * see it (every content word of the lever's value is in D-'s evidence, and not all of them in
 * any other candidate's; meta-task words such as "document" are never used):
 *   category > hypernym > topic > region > usage > timeframe > format > keyword > length.
 * What D+ is gets excluded too when that names nothing D- has.
 * Keyword and length levers work on any corpus (MS MARCO-like passages without metadata);
 * the attribute levers need metadata. When no lever separates D- from the rest it answers
 * `None`, as the prompt allows.
 *
 * I' is written in a style different from I's (plain / persona / background / exclusion,
 * chosen by a hash of the seed among the styles I does not use), names what D- is and, when
 * known, what D+ is, in at most two sentences and without meta-task words. The answer is the
 * same XML the LLM would return, so the engine parses and checks it like any other.
 */
import type { Passage } from '@dv/core';
import { metaWord } from '../guardrails.js';
import { type Evidence, evidenceOf, FILLER } from '../internal/evidence.js';
import {
  categoryPhrase,
  contentStems,
  hash32,
  STOPWORDS,
  stem,
  timeframes,
  words,
} from '../internal/text.js';
import type { BackendAnswer, SynthesisBackend, SynthesisTask } from './synthesis-backend.js';
import { zeroUsage } from './synthesis-backend.js';

export const reversalLevers = [
  'category',
  'hypernym',
  'topic',
  'region',
  'usage',
  'timeframe',
  'format',
  'keyword',
  'length',
] as const;
export type ReversalLever = (typeof reversalLevers)[number];

/** What separates D- from D+: a predicate over results that D- satisfies, and one for D+. */
export interface Reversal {
  lever: ReversalLever;
  /** Verb phrase true of D-, e.g. `describe it as an animal`. */
  require: string;
  /** Verb phrase true of D+ (and not of D-), when one is known. */
  exclude?: string;
}

interface Profile extends Evidence {
  times: string[];
}

function profile(p: Passage): Profile {
  return { ...evidenceOf(p), times: timeframes(`${p.title} ${p.text}`) };
}

export function findReversal(
  task: Pick<SynthesisTask, 'query' | 'instruction' | 'positive' | 'target' | 'otherNegatives'>,
): Reversal | null {
  const pos = profile(task.positive);
  const tgt = profile(task.target);
  const others = task.otherNegatives.map(profile);
  const rest = [pos, ...others];
  const queryStems = new Set(contentStems(task.query));
  const ta = tgt.attrs;
  const pa = pos.attrs;
  const stemsOf = (v: string) => contentStems(v).filter((x) => !queryStems.has(x) && !FILLER.has(x));
  const holds = (p: Profile, v: string) => {
    const vs = stemsOf(v);
    return vs.length > 0 && vs.every((x) => p.stems.has(x));
  };
  /** D- says it, D+ and the other negatives do not (as a reader of their text and attributes would see). */
  const separates = (v: string) =>
    !metaWord(v, task.query) && holds(tgt, v) && rest.every((r) => !holds(r, v));
  /** Safe to exclude: nothing of it is in D-. */
  const absentFromTarget = (v: string) => {
    const vs = stemsOf(v);
    return !metaWord(v, task.query) && vs.length > 0 && vs.every((x) => !tgt.stems.has(x));
  };

  if (ta.category && ta.category !== pa.category && separates(categoryPhrase(ta.category))) {
    const ex = pa.category ? categoryPhrase(pa.category) : undefined;
    return {
      lever: 'category',
      require: `describe it as ${categoryPhrase(ta.category)}`,
      ...(ex && absentFromTarget(ex) ? { exclude: `describe it as ${ex}` } : {}),
    };
  }
  const hyper = (ta.hypernyms ?? []).find(separates);
  if (hyper) {
    const ph = (pa.hypernyms ?? []).find(absentFromTarget);
    return {
      lever: 'hypernym',
      require: `present it as a kind of ${hyper}`,
      ...(ph ? { exclude: `present it as a kind of ${ph}` } : {}),
    };
  }
  const fields = [
    ['topic', 'topics', (v: string) => `place it in the field of ${v}`],
    ['region', 'regions', (v: string) => `tie it to ${v}`],
    ['usage', 'usages', (v: string) => `cover its ${v} use`],
  ] as const;
  for (const [lever, key, phrase] of fields) {
    const v = (ta[key] ?? []).find(separates);
    if (v) {
      const pv = (pa[key] ?? []).find(absentFromTarget);
      return { lever, require: phrase(v), ...(pv ? { exclude: phrase(pv) } : {}) };
    }
  }
  const time = tgt.times.find(separates);
  if (time) return { lever: 'timeframe', require: `mention ${time}` };
  if (
    ta.hasExample !== undefined &&
    pa.hasExample !== undefined &&
    ta.hasExample !== pa.hasExample &&
    others.every((o) => o.attrs.hasExample === pa.hasExample)
  ) {
    return ta.hasExample
      ? { lever: 'format', require: 'include an example of it in use' }
      : { lever: 'format', require: 'give a bare definition with no example' };
  }
  // Keyword: a content word of D- that D+, the other negatives, the query and I lack.
  const banned = new Set([...queryStems, ...contentStems(task.instruction.text)]);
  const kw = words(`${task.target.title} ${task.target.text}`)
    .filter((w) => w.length >= 4 && !STOPWORDS.has(w) && /^\p{L}+$/u.test(w) && !banned.has(stem(w)))
    .filter(separates)
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0];
  if (kw) return { lever: 'keyword', require: `mention ${kw}` };
  // Length: D- clearly shorter or longer than every other candidate.
  const lens = rest.map((p) => p.wordCount);
  const maxOther = Math.max(...lens);
  const minOther = Math.min(...lens);
  if (tgt.wordCount > 0 && tgt.wordCount * 1.5 <= minOther) {
    const n = Math.round((tgt.wordCount + minOther) / 2);
    return { lever: 'length', require: `run under ${n} words`, exclude: `run to ${n} words or more` };
  }
  if (tgt.wordCount >= maxOther * 1.5 && maxOther > 0) {
    const n = Math.round((tgt.wordCount + maxOther) / 2);
    return { lever: 'length', require: `run longer than ${n} words`, exclude: `run to ${n} words or fewer` };
  }
  return null;
}

export const instructionStyles = ['plain', 'persona', 'background', 'exclusion'] as const;
export type ReversalStyle = (typeof instructionStyles)[number];

/** The style of an existing instruction: its declared style, or a guess from its wording. */
export function guessStyle(instruction: { text: string; style?: string }): ReversalStyle {
  const s = instruction.style;
  if (s === 'persona' || s === 'background' || s === 'plain') return s;
  if (s === 'exclusion' || s === 'negation') return 'exclusion';
  if (s === 'narrative') return 'background';
  const t = instruction.text.trim();
  if (/^(i am|i'm|as an?|my |we are|we're)\b/i.test(t)) return 'persona';
  if (/\b(not|exclude|excluding|except|avoid|ignore|skip)\b/i.test(t)) return 'exclusion';
  if (words(t).length > 25) return 'background';
  return 'plain';
}

/** Turns `describe it as X` into the third-person `describes it as X` for "what ..." clauses. */
function third(vp: string): string {
  const [verb, ...rest] = vp.split(' ');
  const v = verb!;
  const s = /(s|sh|ch|x)$/.test(v) ? `${v}es` : /[^aeiou]y$/.test(v) ? `${v.slice(0, -1)}ies` : `${v}s`;
  return [s, ...rest].join(' ');
}

export function writeInstruction(query: string, r: Reversal, style: ReversalStyle): string {
  const q = query.trim();
  const ex = r.exclude;
  switch (style) {
    case 'plain':
      return `For ${q}, only what ${third(r.require)} is useful${ex ? `, not what ${third(ex)}` : ''}.`;
    case 'persona':
      return `I'm after anything on ${q} that will ${r.require}${ex ? `, and I have no use for anything that ${third(ex)}` : ''}.`;
    case 'background':
      return ex
        ? `For my purposes the right reading of ${q} is whatever ${third(r.require)}. Anything that ${third(ex)} misses the point.`
        : `For my purposes the right reading of ${q} is whatever ${third(r.require)}.`;
    case 'exclusion':
      return ex
        ? `Leave out anything on ${q} that ${third(ex)}; keep only what ${third(r.require)}.`
        : `Leave out anything on ${q} unless it would ${r.require}.`;
  }
}

export interface OfflineReverserOptions {
  model?: string;
}

export function createOfflineReverser(options: OfflineReverserOptions = {}): SynthesisBackend {
  return {
    name: 'offline',
    model: options.model ?? 'offline-reverser',
    stochastic: false,
    async synthesize(task: SynthesisTask): Promise<BackendAnswer> {
      const r = findReversal(task);
      if (!r) return { raw: '<answer>None</answer>', usage: zeroUsage(), attempts: 1 };
      const original = guessStyle(task.instruction);
      const choices = instructionStyles.filter((s) => s !== original);
      const style = choices[hash32(task.seedId) % choices.length]!;
      const text = writeInstruction(task.query, r, style);
      return {
        raw: `<answer><new_instruction>${escapeXml(text)}</new_instruction></answer>`,
        usage: zeroUsage(),
        attempts: 1,
        lever: r.lever,
      };
    },
  };
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
