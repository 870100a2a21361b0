/**
 * FollowIR-form topics of the mini world, one per test lemma (mini-world/3):
 * - original instruction (narrative): relevant = the lemma's senses in a chosen PROPER subset of
 *   its lexicographer categories, so at least one judged sense is non-relevant (a selective og);
 *   at least two senses relevant;
 * - clean labels: a sense whose visible text disagrees with its lexicographer file (a sense
 *   outside the chosen categories whose text names a chosen category's word, "organ ... of an
 *   animal" under "an animal"; or a chosen sense whose text names only another category's word)
 *   is left unjudged: out of the qrels and out of the candidates;
 * - changed instruction = original + one sentence that only narrows (changed relevant set =
 *   og relevant set AND the change's constraint; at least one sense removed, one kept), of one of
 *   several forms (`CHANGE_LEVERS`), chosen uniformly among the forms the topic supports:
 *   exclude a hypernym the removed entry prints; exclude a hypernym beyond the printed line (no
 *   removed entry shows the word); require a hypernym of the kept entries; narrow the category
 *   scope (drop one of the og categories, as a requirement or an exclusion); exclude or require a
 *   topic / region / usage domain. Abstract hypernyms are never values (hypernym-values.ts), and
 *   a value sharing a word with the og requirement or the lemma is never used (no "an animal"
 *   then "not a kind of animal"); `checkTopic` asserts this at build time;
 * - the changed sentence and the og opener come from the TEST wording pool; the same topic is
 *   also worded from the TRAIN pool for the seen-wording split (same constraints and qrels);
 * - graded qrels (2 = the lemma heads the synset, 1 = a secondary word of it, 0 = judged
 *   non-relevant sense); a fixed candidate list: the judged senses plus mined distractors.
 */
import { categoryPhrase, type Passage, type Rng } from '@dv/core';
import { tokenize } from '../internal/bm25.js';
import { type Constraint, describeConstraint, docTokens, holds } from './constraint.js';
import { mineDistractors } from './distractors.js';
import { concreteHypernyms } from './hypernym-values.js';
import { renderChange, renderNarrative, type WordingPool } from './instruction-templates.js';
import type { MiniCorpus } from './mini-corpus.js';
import { sensesOf } from './seed-examples.js';

export const CHANGE_LEVERS = [
  'exclude-printed-hypernym',
  'exclude-deep-hypernym',
  'require-hypernym',
  'narrow-category',
  'exclude-domain',
  'require-domain',
] as const;
export type ChangeLever = (typeof CHANGE_LEVERS)[number];

/**
 * Relative weights of the forms when a topic supports several. Exclusions whose value the
 * removed entry prints (its "A kind of ..." line, its "Field:" label) get half weight: in
 * FollowIR the changed words are written by people and are not a key to the removed documents,
 * and at full weight keyword matching alone would score far below FollowIR's BM25 (p-MRR -12
 * instead of FollowIR's -3 .. -1; README, "Figures").
 */
export const CHANGE_WEIGHTS: Record<ChangeLever, number> = {
  'exclude-printed-hypernym': 0.5,
  'exclude-deep-hypernym': 1,
  'require-hypernym': 1,
  'narrow-category': 1,
  'exclude-domain': 0.5,
  'require-domain': 1,
};

/** Attributes the changes constrain (kept for the public API: `EXCLUSION_LEVERS`). */
export const EXCLUSION_LEVERS = ['hypernym', 'category', 'topic', 'region', 'usage'] as const;

export interface TopicWording {
  instructionOg: string;
  instructionChanged: string;
  changeFrame: string;
  ogFrame: string;
}

export interface FollowIRTopic {
  id: string;
  lemma: string;
  instructionOg: string;
  instructionChanged: string;
  /** The same topic worded from the train pool (the seen-wording split). */
  seen: TopicWording;
  changeFrame: string;
  ogConstraint: Constraint;
  /** The change's constraint: changed relevant = og relevant AND this. */
  change: Constraint;
  changeLever: ChangeLever;
  changeWords: string[];
  qrelsOg: Map<string, number>;
  qrelsChanged: Map<string, number>;
  candidates: string[];
  metadata: Record<string, unknown>;
}

const MAX_CATEGORIES = 10;
const MIN_SENSES = 3;

/** Category-phrase words too general to tell categories apart in a text. */
const GENERIC = new Set([
  'part',
  'form',
  'made',
  'man',
  'natural',
  'point',
  'basic',
  'general',
  'very',
  'social',
  'unit',
  'quality',
  'property',
  'state',
  'place',
]);

/** Words of a category's phrase that signal it in a visible text ("animal", "food", "drink"). */
export function categoryCueWords(category: string): string[] {
  return tokenize(categoryPhrase(category)).filter((w) => !GENERIC.has(w));
}

/** 2 when the lemma is the synset's first word, else 1 (it is a secondary word of the entry). */
export function senseGrade(doc: Passage, lemma: string): number {
  const words = ((doc.metadata as { lemmas?: string[] }).lemmas ?? []).map((w) => w.toLowerCase());
  return words[0] === lemma ? 2 : 1;
}

const meta = (d: Passage) =>
  d.metadata as {
    category: string;
    textHypernyms: string[];
    topics: string[];
    regions: string[];
    usages: string[];
  };

const showsAny = (d: Passage, words: ReadonlyArray<string>) => {
  const t = docTokens(d);
  return words.some((w) => t.has(w));
};

/** The words an instruction uses to name a constraint's value. */
export function valueWords(c: Constraint): string[] {
  if (c.lever === 'length' || c.lever === 'format') return [];
  const ws = c.anyOf.flatMap((v) => tokenize(c.lever === 'category' ? categoryPhrase(v) : v));
  return [...new Set(ws)].sort();
}

/** Senses whose lexicographer file and visible text agree for an og selecting `chosen`. */
export function agreeingSenses(senses: ReadonlyArray<Passage>, chosen: ReadonlyArray<string>): Passage[] {
  const cats = [...new Set(senses.map((s) => meta(s).category))];
  const inWords = chosen.flatMap(categoryCueWords);
  const outWords = cats.filter((c) => !chosen.includes(c)).flatMap(categoryCueWords);
  return senses.filter((s) => {
    const inside = chosen.includes(meta(s).category);
    if (!inside) return !showsAny(s, inWords);
    return showsAny(s, inWords) || !showsAny(s, outWords);
  });
}

type Candidate = { lever: ChangeLever; change: Constraint; words: string[] };

function changeCandidates(
  corpus: MiniCorpus,
  lemma: string,
  chosen: string[],
  relevant: Passage[],
): Candidate[] {
  const banned = new Set([...tokenize(lemma), ...chosen.flatMap((c) => tokenize(categoryPhrase(c)))]);
  const out = new Map<string, Candidate>();
  const add = (lever: ChangeLever, change: Constraint, words = valueWords(change)) => {
    if (change.lever !== 'category' && words.some((w) => banned.has(w))) return;
    const kept = relevant.filter((r) => holds(r, change));
    if (kept.length === 0 || kept.length === relevant.length) return;
    if (lever === 'exclude-printed-hypernym') {
      const removed = relevant.filter((r) => !holds(r, change));
      if (!removed.some((r) => showsAny(r, words))) return;
    }
    if (lever === 'exclude-deep-hypernym') {
      const removed = relevant.filter((r) => !holds(r, change));
      if (removed.some((r) => showsAny(r, words))) return;
    }
    out.set(`${lever} ${describeConstraint(change)}`, { lever, change, words });
  };
  for (const r of relevant) {
    const concrete = concreteHypernyms(corpus, r);
    const printed = new Set(meta(r).textHypernyms);
    for (const h of concrete) {
      const c: Constraint = { lever: 'hypernym', anyOf: [h], negated: true };
      add(printed.has(h) ? 'exclude-printed-hypernym' : 'exclude-deep-hypernym', c);
      add('require-hypernym', { lever: 'hypernym', anyOf: [h], negated: false });
    }
    for (const [lever, key] of [
      ['topic', 'topics'],
      ['region', 'regions'],
      ['usage', 'usages'],
    ] as const) {
      for (const v of meta(r)[key]) {
        add('exclude-domain', { lever, anyOf: [v], negated: true });
        add('require-domain', { lever, anyOf: [v], negated: false });
      }
    }
  }
  if (chosen.length >= 2) {
    for (const b of chosen) {
      const rest = chosen.filter((c) => c !== b);
      add('narrow-category', { lever: 'category', anyOf: [b], negated: true });
      add('narrow-category', { lever: 'category', anyOf: rest, negated: false });
    }
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, c]) => c);
}

/**
 * Build-time check of a topic: the change only narrows (no doc gains relevance, at least one is
 * removed and one kept) and is not self-contradictory (an exclusion value shares no word with
 * every alternative of the og requirement). Throws: a failure is a builder bug.
 */
export function checkTopic(
  t: Pick<FollowIRTopic, 'id' | 'qrelsOg' | 'qrelsChanged' | 'ogConstraint' | 'change'>,
): void {
  let removed = 0;
  let kept = 0;
  for (const [d, g] of t.qrelsChanged) {
    const og = t.qrelsOg.get(d) ?? 0;
    if (g > 0 && og <= 0) throw new Error(`topic ${t.id}: the change makes ${d} relevant`);
    if (g > 0) kept++;
    else if (og > 0) removed++;
  }
  if (removed === 0 || kept === 0)
    throw new Error(`topic ${t.id}: the change removes ${removed} and keeps ${kept}`);
  if (t.change.negated && t.ogConstraint.lever === 'category') {
    const ex = new Set(valueWords({ ...t.change, negated: false } as Constraint));
    const alternatives = t.ogConstraint.anyOf.map((c) => tokenize(categoryPhrase(c)));
    if (t.change.lever !== 'category' && alternatives.every((a) => a.some((w) => ex.has(w))))
      throw new Error(
        `topic ${t.id}: ${describeConstraint(t.change)} contradicts ${describeConstraint(t.ogConstraint)}`,
      );
  }
}

function word(lemma: string, og: Constraint, change: Constraint, rng: Rng, pool: WordingPool): TopicWording {
  const o = renderNarrative(lemma, og, rng, pool);
  const c = renderChange(change, rng, pool);
  return {
    instructionOg: o.text,
    instructionChanged: `${o.text} ${c.text}`,
    changeFrame: c.frames[0]!,
    ogFrame: o.frames[0]!,
  };
}

/** The item whose cumulative weight first exceeds `x` (0 <= x < total weight). */
function weightedPick<T>(items: readonly T[], weight: (t: T) => number, x: number): T {
  let acc = 0;
  for (const t of items) {
    acc += weight(t);
    if (x < acc) return t;
  }
  return items.at(-1)!;
}

export function buildFollowIRTopic(
  corpus: MiniCorpus,
  lemma: string,
  rng: Rng,
  candidates: number,
): FollowIRTopic | null {
  const senses = sensesOf(corpus, lemma);
  if (senses.length < MIN_SENSES) return null;
  const cats = [...new Set(senses.map((s) => meta(s).category))];
  if (cats.length < 2 || cats.length > MAX_CATEGORIES) return null;
  const options: Array<{ chosen: string[]; judged: Passage[]; relevant: Passage[]; changes: Candidate[] }> =
    [];
  for (let mask = 1; mask < (1 << cats.length) - 1; mask++) {
    const chosen = cats.filter((_, i) => mask & (1 << i));
    const judged = agreeingSenses(senses, chosen);
    const relevant = judged.filter((s) => chosen.includes(meta(s).category));
    if (relevant.length < 2 || relevant.length === judged.length) continue;
    const changes = changeCandidates(corpus, lemma, chosen, relevant);
    if (changes.length > 0) options.push({ chosen, judged, relevant, changes });
  }
  if (options.length === 0) return null;
  // Form first (among the forms this lemma supports, by `CHANGE_WEIGHTS`), then an og choice,
  // then a value.
  const forms = CHANGE_LEVERS.filter((l) => options.some((o) => o.changes.some((c) => c.lever === l)));
  const total = forms.reduce((a, l) => a + CHANGE_WEIGHTS[l], 0);
  const lever = weightedPick(forms, (l) => CHANGE_WEIGHTS[l], rng.float() * total);
  const pick = rng.choice(options.filter((o) => o.changes.some((c) => c.lever === lever)));
  const cand = rng.choice(pick.changes.filter((c) => c.lever === lever));
  const ogConstraint: Constraint = { lever: 'category', anyOf: pick.chosen, negated: false };
  const change = cand.change;
  const main = word(lemma, ogConstraint, change, rng.fork('test-wording'), 'test');
  const seen = word(lemma, ogConstraint, change, rng.fork('train-wording'), 'train');

  const qrelsOg = new Map<string, number>();
  const qrelsChanged = new Map<string, number>();
  const removed: string[] = [];
  for (const s of pick.judged) {
    const og = holds(s, ogConstraint);
    const changed = og && holds(s, change);
    qrelsOg.set(s.docid, og ? senseGrade(s, lemma) : 0);
    qrelsChanged.set(s.docid, changed ? senseGrade(s, lemma) : 0);
    if (og && !changed) removed.push(s.docid);
  }
  const senseIds = senses.map((s) => s.docid);
  const judgedIds = pick.judged.map((s) => s.docid);
  const unjudged = senseIds.filter((id) => !judgedIds.includes(id));
  const distractors = mineDistractors(
    corpus,
    lemma,
    judgedIds,
    new Set(senseIds),
    candidates - judgedIds.length,
  );
  const id = `mini-${lemma.replace(/\s+/g, '_')}`;
  const topic: FollowIRTopic = {
    id,
    lemma,
    instructionOg: main.instructionOg,
    instructionChanged: main.instructionChanged,
    seen,
    changeFrame: main.changeFrame,
    ogConstraint,
    change,
    changeLever: cand.lever,
    changeWords: cand.words,
    qrelsOg,
    qrelsChanged,
    candidates: rng.shuffle([...judgedIds, ...distractors]),
    metadata: {
      lemma,
      ogConstraint: describeConstraint(ogConstraint),
      changedConstraint: describeConstraint(change),
      lever: 'category',
      changedLever: change.lever,
      changeLever: cand.lever,
      changeWords: cand.words,
      changeFrame: main.changeFrame,
      removedDocids: removed,
      unjudgedDocids: unjudged,
      dominantRemoved: removed.includes(senseIds[0]!),
      dominantRelevantOg: (qrelsOg.get(senseIds[0]!) ?? 0) > 0,
    },
  };
  checkTopic(topic);
  return topic;
}
