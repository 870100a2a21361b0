import { type Passage, SeedExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { checkGuardrails, countSentences } from '../guardrails.js';
import { parseAnswer } from '../parse-answer.js';
import { prepareTask } from '../synthesis-task.js';
import { templates } from '../template-registry.js';
import { metadataSeeds, plainSeeds } from '../test-utils/seed-fixtures.js';
import { createLexicalJudge } from '../verify/lexical-judge.js';
import {
  createOfflineReverser,
  FRAME_PARAPHRASES,
  findReversal,
  guessStyle,
  instructionStyles,
  LEVER_WORDINGS,
  type Reversal,
  reversalFrames,
  reversalLevers,
  reverseOffline,
  separatingLevers,
  writeInstruction,
} from './offline-reverser.js';

const doc = (docid: string, text: string, metadata?: Record<string, unknown>, title = ''): Passage => ({
  docid,
  title,
  text,
  ...(metadata ? { metadata } : {}),
});
const task = (positive: Passage, target: Passage, otherNegatives: Passage[] = [], query = 'bass') => ({
  query,
  instruction: { text: 'Only the fish.' },
  positive,
  target,
  otherNegatives,
});

describe('separating levers (read off title + text)', () => {
  it('collects every lever whose value D- shows and no other candidate shows', () => {
    const levers = separatingLevers(
      task(
        doc(
          'a',
          'A lean saltwater fish. A kind of fish, vertebrate.',
          { category: 'noun.animal', hypernyms: ['fish', 'vertebrate'] },
          'bass',
        ),
        doc(
          'b',
          'The lowest stringed instrument of the orchestra. A kind of bowed stringed instrument. Example: "he plays the bass".',
          {
            category: 'noun.artifact',
            hypernyms: ['bowed stringed instrument', 'instrument'],
            hasExample: true,
          },
          'bass, double bass, contrabass',
        ),
      ),
    );
    expect([...levers.keys()].sort()).toEqual(['format', 'hypernym', 'keyword', 'length', 'synonym']);
    expect(levers.get('hypernym')!.values).toEqual(['bowed stringed instrument', 'instrument']);
    expect(levers.get('hypernym')!.exclude).toEqual(['fish', 'vertebrate']);
    expect(levers.get('synonym')!.values).toEqual(['double bass', 'contrabass']);
  });
  it('never rests on metadata the text does not show (regression: 18.5% failed the text-only judge)', () => {
    // categories differ, but no category phrase is in either text: no category lever
    const levers = separatingLevers(
      task(
        doc('a', 'a lean fish', { category: 'noun.animal' }),
        doc('b', 'a fine guitar', { category: 'noun.artifact', hypernyms: ['instrument'] }),
      ),
    );
    expect(levers.has('category')).toBe(false);
    expect(levers.has('hypernym')).toBe(false);
    expect([...levers.keys()]).toEqual(['keyword']);
  });
  it('skips values another candidate also shows, and meta-task words', () => {
    const levers = separatingLevers(
      task(
        doc('a', 'a lean fish; a form of communication'),
        doc('b', 'a deed, a legal document of communication', { hypernyms: ['document', 'communication'] }),
      ),
    );
    expect(levers.has('hypernym')).toBe(false); // "document" is a meta word, "communication" is shared
  });
  it('works without metadata: timeframe, keyword, length', () => {
    expect(
      separatingLevers(task(doc('a', 'the old harbour'), doc('b', 'the old harbour in 1850'))).get(
        'timeframe',
      )?.values,
    ).toEqual(['1850']);
    const len = separatingLevers(
      task(
        doc('a', 'eggs eggs eggs eggs eggs eggs eggs eggs eggs eggs'),
        doc('b', 'eggs eggs eggs'),
        [],
        'eggs',
      ),
    );
    expect(len.get('length')?.values).toEqual(['<7']);
  });
  it('answers None when nothing separates the target from the positive', () => {
    expect(findReversal(task(doc('a', 'bass fish'), doc('b', 'bass fish')))).toBeNull();
  });
});

describe('lever choice among all separating levers', () => {
  it('picks different levers for different seeds (not a fixed order)', () => {
    const t = task(
      doc('a', 'A lean fish. A kind of fish.', { hypernyms: ['fish'] }, 'bass'),
      doc(
        'b',
        'A stringed instrument. A kind of instrument. Example: "a bass".',
        { hypernyms: ['instrument'], hasExample: true },
        'bass, contrabass',
      ),
    );
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) seen.add(findReversal(t, `seed-${i}`)!.lever);
    expect([...seen].sort()).toEqual(['format', 'hypernym', 'keyword', 'synonym']);
  });
});

describe('writing I′', () => {
  const r: Reversal = { lever: 'hypernym', value: 'instrument', excludeValue: 'fish' };
  it('has >= 5 paraphrases per (style, frame) and >= 3 wordings per lever', () => {
    for (const s of instructionStyles)
      for (const f of reversalFrames) expect(FRAME_PARAPHRASES[s][f].length).toBeGreaterThanOrEqual(5);
    for (const l of reversalLevers) expect(LEVER_WORDINGS[l].length).toBeGreaterThanOrEqual(3);
  });
  it('every paraphrase stays within two sentences, passes the guardrails and the text-only judge', async () => {
    const judge = createLexicalJudge();
    const positive = doc('p', 'A lean saltwater fish. A kind of fish.');
    const target = doc('t', 'The lowest stringed instrument. A kind of instrument.');
    for (let i = 0; i < 200; i++) {
      const w = writeInstruction('bass', i % 2 ? r : { lever: 'hypernym', value: 'instrument' }, `k${i}`);
      expect(countSentences(w.text), w.text).toBeLessThanOrEqual(2);
      expect(w.text).toContain('bass');
      expect(
        checkGuardrails({
          newInstruction: w.text,
          originalInstruction: 'Only the fish.',
          query: 'bass',
          docids: ['p', 't'],
        }),
      ).toEqual({ ok: true });
      const v = await judge.judge({
        seedId: 's',
        query: 'bass',
        newInstruction: w.text,
        positive,
        target,
        otherNegatives: [],
      });
      expect(v.passed, w.text).toBe(true);
    }
  });
  it('quotes the query in about half of the complements', () => {
    let quoted = 0;
    for (let i = 0; i < 400; i++) if (writeInstruction('bass', r, `q${i}`).quoted) quoted++;
    expect(quoted).toBeGreaterThan(160);
    expect(quoted).toBeLessThan(240);
  });
  it('guesses styles from wording', () => {
    expect(guessStyle({ text: "I'm a chef looking for recipes" })).toBe('persona');
    expect(guessStyle({ text: 'Exclude anything about cars.' })).toBe('exclusion');
    expect(guessStyle({ text: 'Only fish.' })).toBe('plain');
  });
});

describe('the backend', () => {
  it('answers parseable XML for metadata and plain seeds, and reverseOffline matches it', async () => {
    const b = createOfflineReverser();
    for (const s0 of [...metadataSeeds(6), ...plainSeeds(2)]) {
      const seed = SeedExample.parse(s0);
      const p = prepareTask(seed, { template: templates['polarity-reversal'], model: b.model });
      if (!p.ok) throw new Error('fixture without negatives');
      const a = await b.synthesize(p.task);
      const parsed = parseAnswer(a.raw);
      const direct = reverseOffline(p.task);
      if (!direct) {
        expect(parsed.kind).toBe('none');
        continue;
      }
      expect(parsed).toMatchObject({ kind: 'instruction', text: direct.text });
      expect(a.lever).toBe(direct.lever);
    }
  });
});
