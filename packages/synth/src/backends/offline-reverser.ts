/**
 * The offline reverser: a deterministic stand-in for the LLM that does what the prompt asks
 * with what it can read (no network, no model).
 *
 * Method (the prompt's, made mechanical):
 * 1. Profile D+ (positive), D- (target) and the other instruction negatives. Lever VALUES are
 *    proposed from `Passage.metadata` (`DocAttributes`: category, hypernyms, topic / region /
 *    usage domains, hasExample) and from the text (synonyms in the title, timeframe words,
 *    distinctive keywords, length); a value SEPARATES when a reader of the title and text sees
 *    it in D- and in no other candidate (every content word of it in D-'s text, not all of them
 *    in any other's). The check reads title + text only, as the encoder and the default
 *    (text-only) judge do, so no complement rests on metadata nobody sees.
 * 2. Collect every separating lever (category, hypernym, topic, region, usage, timeframe,
 *    format, synonym, keyword, length) and choose ONE among them by a hash of the seed id (not
 *    in a fixed order; `LEVER_WEIGHTS`), then one of its separating values by another hash. What D+ is gets
 *    excluded too when the same lever names something D- lacks.
 * 3. Write I' from a paraphrase pool: style (plain / persona / background / exclusion), frame
 *    (require only, or require + exclude), one of >= 5 paraphrases per (style, frame), and one
 *    of several wordings per lever, all chosen by hashes of the seed id. The lemma is quoted
 *    in half of the complements (a hash), as the mini world's seed instructions quote it in
 *    half of theirs, so quoting tells a model nothing about which view it reads.
 * When no lever separates D- from the rest it answers `None`, as the prompt allows. Category
 * phrases come from @dv/core's `categoryPhrase` (the one table seeds and reverser share).
 */
import { categoryPhrase, type Passage } from '@dv/core';
import { metaWord } from '../guardrails.js';
import { type Evidence, evidenceOf, FILLER } from '../internal/evidence.js';
import { contentStems, hash32, STOPWORDS, stem, timeframes, words } from '../internal/text.js';
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
  'synonym',
  'keyword',
  'length',
] as const;
export type ReversalLever = (typeof reversalLevers)[number];

/** A verb phrase in base form ("be a kind of fish") and third person ("is a kind of fish"). */
export interface VerbPhrase {
  base: string;
  third: string;
}

/** What separates D- from D+: a predicate D- satisfies, and one true of D+ (not of D-) when known. */
export interface Reversal {
  lever: ReversalLever;
  /** The lever value D- shows ("guitar", "noun.artifact", "altitude", "12"). */
  value: string;
  /** The value of D+ to exclude, when the same lever names one D- lacks. */
  excludeValue?: string;
}

interface Profile extends Evidence {
  title: string;
  text: string;
  times: string[];
}

function profile(p: Passage): Profile {
  const meta = evidenceOf(p, true).attrs;
  return {
    ...evidenceOf(p, false),
    attrs: meta,
    title: p.title,
    text: p.text,
    times: timeframes(`${p.title} ${p.text}`),
  };
}

type TaskView = Pick<SynthesisTask, 'query' | 'instruction' | 'positive' | 'target' | 'otherNegatives'>;

/** Every lever that separates D- from D+ and the other negatives, each with its separating values. */
export function separatingLevers(
  task: TaskView,
): Map<ReversalLever, { values: string[]; exclude: string[] }> {
  const pos = profile(task.positive);
  const tgt = profile(task.target);
  const others = task.otherNegatives.map(profile);
  const rest = [pos, ...others];
  const queryStems = new Set(contentStems(task.query));
  const stemsOf = (v: string) => contentStems(v).filter((x) => !queryStems.has(x) && !FILLER.has(x));
  const shows = (p: Profile, v: string) => {
    const vs = stemsOf(v);
    return vs.length > 0 && vs.every((x) => p.stems.has(x));
  };
  const separates = (v: string) =>
    !metaWord(v, task.query) && shows(tgt, v) && rest.every((r) => !shows(r, v));
  const absentFromTarget = (v: string) => {
    const vs = stemsOf(v);
    return !metaWord(v, task.query) && vs.length > 0 && vs.every((x) => !tgt.stems.has(x)) && shows(pos, v);
  };
  const out = new Map<ReversalLever, { values: string[]; exclude: string[] }>();
  const put = (lever: ReversalLever, values: string[], exclude: string[] = []) => {
    const vs = [...new Set(values)];
    if (vs.length > 0) out.set(lever, { values: vs, exclude: [...new Set(exclude)] });
  };
  const ta = tgt.attrs;
  const pa = pos.attrs;
  if (ta.category && ta.category !== pa.category && separates(categoryPhrase(ta.category))) {
    const ex = pa.category && absentFromTarget(categoryPhrase(pa.category)) ? [pa.category] : [];
    put('category', [ta.category], ex);
  }
  put('hypernym', (ta.hypernyms ?? []).filter(separates), (pa.hypernyms ?? []).filter(absentFromTarget));
  for (const [lever, key] of [
    ['topic', 'topics'],
    ['region', 'regions'],
    ['usage', 'usages'],
  ] as const) {
    put(lever, (ta[key] ?? []).filter(separates), (pa[key] ?? []).filter(absentFromTarget));
  }
  put('timeframe', tgt.times.filter(separates));
  const hasEx = (p: Profile) => p.attrs.hasExample ?? /\bexamples?:/i.test(p.text);
  if (hasEx(tgt) !== hasEx(pos) && others.every((o) => hasEx(o) === hasEx(pos)))
    put('format', [hasEx(tgt) ? 'example' : 'bare']);
  // Synonym: another word of D-'s title (WordNet synset words) that no other candidate shows.
  const banned = new Set([...queryStems, ...contentStems(task.instruction.text)]);
  const titleWords = task.target.title
    .split(/,\s*/)
    .map((w) => w.trim())
    .filter((w) => w && w.toLowerCase() !== task.query.toLowerCase() && /^[\p{L} '-]+$/u.test(w));
  put(
    'synonym',
    titleWords
      .filter((w) => stemsOf(w).length > 0 && stemsOf(w).every((x) => !banned.has(x)))
      .filter(separates),
  );
  // Keyword: a content word of D-'s definition that D+, the other negatives, the query and I lack.
  const kw = words(task.target.text)
    .filter((w) => w.length >= 4 && !STOPWORDS.has(w) && /^\p{L}+$/u.test(w) && !banned.has(stem(w)))
    .filter(separates)
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  put('keyword', kw.slice(0, 6));
  const lens = rest.map((p) => p.wordCount);
  const maxOther = Math.max(...lens);
  const minOther = Math.min(...lens);
  if (tgt.wordCount > 0 && tgt.wordCount * 1.5 <= minOther)
    put('length', [`<${Math.round((tgt.wordCount + minOther) / 2)}`]);
  else if (maxOther > 0 && tgt.wordCount >= maxOther * 1.5)
    put('length', [`>${Math.round((tgt.wordCount + maxOther) / 2)}`]);
  return out;
}

/**
 * Relative weights of the separating levers in the choice: a keyword separates almost every
 * pair and a printed hypernym most, so they weigh less, which leaves room for the rarer levers
 * (measured by `dv data stats`: no lever above 40%, six at >= 5% on the default build).
 */
export const LEVER_WEIGHTS: Record<ReversalLever, number> = {
  category: 1,
  hypernym: 0.6,
  topic: 1,
  region: 1,
  usage: 1,
  timeframe: 1,
  format: 1,
  synonym: 1,
  keyword: 0.5,
  length: 1,
};

/** One separating lever and value, chosen by hashes of `key` (the seed id) among all of them. */
export function findReversal(task: TaskView, key = ''): Reversal | null {
  const all = separatingLevers(task);
  if (all.size === 0) return null;
  const levers = reversalLevers.filter((l) => all.has(l));
  const total = levers.reduce((a, l) => a + LEVER_WEIGHTS[l], 0);
  const x = (hash32(`${key}\0lever`) / 2 ** 32) * total;
  let acc = 0;
  let lever = levers.at(-1)!;
  for (const l of levers) {
    acc += LEVER_WEIGHTS[l];
    if (x < acc) {
      lever = l;
      break;
    }
  }
  const { values, exclude } = all.get(lever)!;
  const value = values[hash32(`${key}\0value`) % values.length]!;
  const excludeValue = exclude.length > 0 ? exclude[hash32(`${key}\0exclude`) % exclude.length] : undefined;
  return {
    lever,
    value,
    ...(excludeValue && lever !== 'length' && lever !== 'format' ? { excludeValue } : {}),
  };
}

const vp = (base: string, third: string): VerbPhrase => ({ base, third });

/** Wordings per lever: the verb phrase a frame slots in (>= 3 per lever). */
export const LEVER_WORDINGS: Record<ReversalLever, ReadonlyArray<(v: string) => VerbPhrase>> = {
  category: [
    (v) => vp(`describe ${categoryPhrase(v)}`, `describes ${categoryPhrase(v)}`),
    (v) => vp(`be about ${categoryPhrase(v)}`, `is about ${categoryPhrase(v)}`),
    (v) => vp(`treat it as ${categoryPhrase(v)}`, `treats it as ${categoryPhrase(v)}`),
  ],
  hypernym: [
    (v) => vp(`present it as a kind of ${v}`, `presents it as a kind of ${v}`),
    (v) => vp(`be a type of ${v}`, `is a type of ${v}`),
    (v) => vp(`count as one sort of ${v}`, `counts as one sort of ${v}`),
    (v) => vp(`fall under ${v}`, `falls under ${v}`),
  ],
  topic: [
    (v) => vp(`place it in the field of ${v}`, `places it in the field of ${v}`),
    (v) => vp(`belong to ${v}`, `belongs to ${v}`),
    (v) => vp(`come from ${v}`, `comes from ${v}`),
  ],
  region: [
    (v) => vp(`tie it to ${v}`, `ties it to ${v}`),
    (v) => vp(`be used in ${v}`, `is used in ${v}`),
    (v) => vp(`come from ${v}`, `comes from ${v}`),
  ],
  usage: [
    (v) => vp(`cover its ${v} use`, `covers its ${v} use`),
    (v) => vp(`be marked ${v}`, `is marked ${v}`),
    (v) => vp(`carry the label ${v}`, `carries the label ${v}`),
  ],
  timeframe: [
    (v) => vp(`mention ${v}`, `mentions ${v}`),
    (v) => vp(`refer to ${v}`, `refers to ${v}`),
    (v) => vp(`date it to ${v}`, `dates it to ${v}`),
  ],
  format: [
    (v) =>
      v === 'example'
        ? vp('include an example of it in use', 'includes an example of it in use')
        : vp('give a bare definition with no example', 'gives a bare definition with no example'),
    (v) =>
      v === 'example'
        ? vp('quote an example', 'quotes an example')
        : vp('come without an example', 'comes without an example'),
    (v) =>
      v === 'example'
        ? vp('show it in an example sentence', 'shows it in an example sentence')
        : vp('offer no example sentence', 'offers no example sentence'),
  ],
  synonym: [
    (v) => vp(`also go by the name ${v}`, `also goes by the name ${v}`),
    (v) => vp(`list ${v} as another name`, `lists ${v} as another name`),
    (v) => vp(`be the sense also called ${v}`, `is the sense also called ${v}`),
  ],
  keyword: [
    (v) => vp(`mention ${v}`, `mentions ${v}`),
    (v) => vp(`bring up ${v}`, `brings up ${v}`),
    (v) => vp(`talk about ${v}`, `talks about ${v}`),
    (v) => vp(`involve ${v}`, `involves ${v}`),
  ],
  length: [
    (v) =>
      v.startsWith('<')
        ? vp(`run under ${v.slice(1)} words`, `runs under ${v.slice(1)} words`)
        : vp(`run longer than ${v.slice(1)} words`, `runs longer than ${v.slice(1)} words`),
    (v) =>
      v.startsWith('<')
        ? vp(`take fewer than ${v.slice(1)} words`, `takes fewer than ${v.slice(1)} words`)
        : vp(`take more than ${v.slice(1)} words`, `takes more than ${v.slice(1)} words`),
    (v) =>
      v.startsWith('<')
        ? vp(`be shorter than ${v.slice(1)} words`, `is shorter than ${v.slice(1)} words`)
        : vp(`be longer than ${v.slice(1)} words`, `is longer than ${v.slice(1)} words`),
  ],
};

export const instructionStyles = ['plain', 'persona', 'background', 'exclusion'] as const;
export type ReversalStyle = (typeof instructionStyles)[number];
export const reversalFrames = ['require', 'require-exclude'] as const;
export type ReversalFrame = (typeof reversalFrames)[number];

type FrameText = (q: string, r: VerbPhrase, x: VerbPhrase) => string;

/**
 * Paraphrases per (style, frame): five or more each. In `require-exclude` paraphrases the
 * exclusion is its own clause with a negation cue ("not", "no use for", "leave out", "skip"),
 * separated by punctuation, as the lexical judge reads clauses.
 */
export const FRAME_PARAPHRASES: Record<ReversalStyle, Record<ReversalFrame, ReadonlyArray<FrameText>>> = {
  plain: {
    require: [
      (q, r) => `For ${q}, only what ${r.third} is useful.`,
      (q, r) => `The sense of ${q} I want ${r.third}.`,
      (q, r) => `Give me the meaning of ${q} that ${r.third}.`,
      (q, r) => `Only a meaning of ${q} that ${r.third} fits.`,
      (q, r) => `Pick out the ${q} that ${r.third}.`,
    ],
    'require-exclude': [
      (q, r, x) => `For ${q}, only what ${r.third} is useful, not what ${x.third}.`,
      (q, r, x) => `The sense of ${q} I want ${r.third}; it is not the one that ${x.third}.`,
      (q, r, x) => `Give me the meaning of ${q} that ${r.third}, not the one that ${x.third}.`,
      (q, r, x) => `Only a meaning of ${q} that ${r.third} fits; skip any that ${x.third}.`,
      (q, r, x) => `Pick out the ${q} that ${r.third}, never the one that ${x.third}.`,
    ],
  },
  persona: {
    require: [
      (q, r) => `I'm after anything on ${q} that will ${r.base}.`,
      (q, r) => `As a reader of an old atlas, I need the ${q} that would ${r.base}.`,
      (q, r) => `I teach English and want the sense of ${q} that ${r.third}.`,
      (q, r) => `My crossword clue for ${q} needs the meaning that ${r.third}.`,
      (q, r) => `I am sorting my notes on ${q} and keep whatever ${r.third}.`,
    ],
    'require-exclude': [
      (q, r, x) =>
        `I'm after anything on ${q} that will ${r.base}, and I have no use for anything that ${x.third}.`,
      (q, r, x) =>
        `As a reader of an old atlas, I need the ${q} that would ${r.base}; one that ${x.third} is not it.`,
      (q, r, x) => `I teach English and want the sense of ${q} that ${r.third}, not the one that ${x.third}.`,
      (q, r, x) => `My crossword clue for ${q} needs the meaning that ${r.third}; skip whatever ${x.third}.`,
      (q, r, x) =>
        `I am sorting my notes on ${q} and keep whatever ${r.third}; anything that ${x.third} I do not keep.`,
    ],
  },
  background: {
    require: [
      (q, r) => `For my purposes the right reading of ${q} is whatever ${r.third}.`,
      (q, r) => `The text I am reading uses ${q} in the sense that ${r.third}.`,
      (q, r) => `In what I read, ${q} was the one that ${r.third}.`,
      (q, r) => `Where I met the word ${q}, the meaning was one that ${r.third}.`,
      (q, r) => `The author meant the ${q} that ${r.third}.`,
    ],
    'require-exclude': [
      (q, r, x) =>
        `For my purposes the right reading of ${q} is whatever ${r.third}. Anything that ${x.third} misses the point.`,
      (q, r, x) =>
        `The text I am reading uses ${q} in the sense that ${r.third}. It does not mean one that ${x.third}.`,
      (q, r, x) =>
        `Where I met the word ${q}, the meaning was one that ${r.third}. It was not one that ${x.third}.`,
      (q, r, x) => `The author meant the ${q} that ${r.third}. A ${q} that ${x.third} is not what was meant.`,
      (q, r, x) => `In what I read, ${q} was the one that ${r.third}. Never the one that ${x.third}.`,
    ],
  },
  exclusion: {
    require: [
      (q, r) => `Leave out anything on ${q} unless it would ${r.base}.`,
      (q, r) => `Skip each ${q} unless it ${r.third}.`,
      (q, r) => `Drop the meanings of ${q}, but keep one that ${r.third}.`,
      (q, r) => `Nothing on ${q} helps me unless it ${r.third}.`,
      (q, r) => `Rule out all senses of ${q} unless one ${r.third}.`,
    ],
    'require-exclude': [
      (q, r, x) => `Leave out anything on ${q} that ${x.third}; keep only what ${r.third}.`,
      (q, r, x) => `Skip every ${q} that ${x.third}; the one that ${r.third} stays.`,
      (q, r, x) => `Exclude the ${q} that ${x.third}, but keep the one that ${r.third}.`,
      (q, r, x) => `Not the ${q} that ${x.third}; I want what ${r.third}.`,
      (q, r, x) => `Avoid any ${q} that ${x.third}; choose the one that ${r.third}.`,
    ],
  },
};

/** The style of an existing instruction: its declared style, or a guess from its wording. */
export function guessStyle(instruction: { text: string; style?: string }): ReversalStyle {
  const s = instruction.style;
  if (s === 'persona' || s === 'background' || s === 'plain') return s;
  if (s === 'exclusion' || s === 'negation' || s === 'compound') return 'exclusion';
  if (s === 'narrative') return 'background';
  const t = instruction.text.trim();
  if (/^(i am|i'm|as an?|my |we are|we're)\b/i.test(t)) return 'persona';
  if (/\b(not|exclude|excluding|except|avoid|ignore|skip)\b/i.test(t)) return 'exclusion';
  if (words(t).length > 25) return 'background';
  return 'plain';
}

export interface WrittenInstruction {
  text: string;
  style: ReversalStyle;
  frame: ReversalFrame;
  /** `style/frame/paraphrase/wording`: the skeleton the text was written from. */
  skeleton: string;
  quoted: boolean;
}

/** Writes I' for a reversal; every choice (style, paraphrase, wording, quoting) hashes `key`. */
export function writeInstruction(
  query: string,
  r: Reversal,
  key: string,
  style: ReversalStyle = instructionStyles[hash32(`${key}\0style`) % instructionStyles.length]!,
): WrittenInstruction {
  const quoted = hash32(`${key}\0quote`) % 2 === 0;
  const q = quoted ? `"${query.trim()}"` : query.trim();
  const frame: ReversalFrame = r.excludeValue ? 'require-exclude' : 'require';
  const pool = FRAME_PARAPHRASES[style][frame];
  const pi = hash32(`${key}\0para`) % pool.length;
  const wordings = LEVER_WORDINGS[r.lever];
  const wi = hash32(`${key}\0wording`) % wordings.length;
  const xi = hash32(`${key}\0xwording`) % wordings.length;
  const req = wordings[wi]!(r.value);
  const ex = r.excludeValue ? wordings[xi]!(r.excludeValue) : req;
  return {
    text: pool[pi]!(q, req, ex),
    style,
    frame,
    skeleton: `${style}/${frame}/${pi}/${r.lever}`,
    quoted,
  };
}

/** The whole offline answer for a task: the reversal and the written I', or null (None). */
export function reverseOffline(task: TaskView & { seedId: string }): (WrittenInstruction & Reversal) | null {
  const r = findReversal(task, task.seedId);
  if (!r) return null;
  return { ...r, ...writeInstruction(task.query, r, task.seedId) };
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
      const w = reverseOffline(task);
      if (!w) return { raw: '<answer>None</answer>', usage: zeroUsage(), attempts: 1 };
      return {
        raw: `<answer><new_instruction>${escapeXml(w.text)}</new_instruction></answer>`,
        usage: zeroUsage(),
        attempts: 1,
        lever: w.lever,
      };
    },
  };
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
