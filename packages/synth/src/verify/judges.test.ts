import type { Passage } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { createScriptedBackend } from '../backends/scripted.js';
import { createLexicalJudge } from './lexical-judge.js';
import { createLlmJudge } from './llm-judge.js';

const d = (docid: string, text: string, metadata?: Record<string, unknown>): Passage => ({
  docid,
  title: '',
  text,
  ...(metadata ? { metadata } : {}),
});
const input = (newInstruction: string, extra: Partial<{ others: Passage[] }> = {}) => ({
  seedId: 's',
  query: 'bass',
  newInstruction,
  positive: d('p', 'a lean saltwater fish', { category: 'noun.animal', hypernyms: ['fish'] }),
  target: d('t', 'the lowest stringed instrument', { category: 'noun.artifact', hypernyms: ['instrument'] }),
  otherNegatives: extra.others ?? [],
});

describe('lexical judge', () => {
  const judge = createLexicalJudge();
  it('by default reads title + text only; the metadata judge is opt-in', async () => {
    const v = await judge.judge(input('I want the stringed instrument, not the fish.'));
    expect(v).toMatchObject({ judge: 'lexical', threshold: 0.25, passed: true });
    expect(v.score).toBeGreaterThan(1);
    // "a man-made object" is only in the target's metadata (category noun.artifact), not its text
    const byCategory = 'Only what describes it as a man-made object.';
    expect((await judge.judge(input(byCategory))).passed).toBe(false);
    const meta = createLexicalJudge(0.25, { useMetadata: true });
    const withMeta = await meta.judge(input(byCategory));
    expect(withMeta).toMatchObject({ judge: 'lexical-metadata', passed: true });
  });
  it('fails a reversal that still favours the positive or leaves another negative level with the target', async () => {
    expect((await judge.judge(input('Only the fish, please.'))).passed).toBe(false);
    const v = await judge.judge(
      input('Only the instrument.', { others: [d('o', 'an instrument amplifier')] }),
    );
    expect(v.passed).toBe(false);
    expect(v.details).toMatchObject({ othersBelowTarget: false });
  });
  it('reads length constraints', async () => {
    const v = await judge.judge({
      ...input('Keep it under 5 words.'),
      positive: d('p', 'one two three four five six seven'),
      target: d('t', 'one two three'),
    });
    expect(v.passed).toBe(true);
  });
});

describe('LLM judge', () => {
  it('scores the share of correct verdicts and stores it with the threshold', async () => {
    const prompts: string[] = [];
    const backend = createScriptedBackend({
      model: 'judge-model',
      answer: () => null,
      chat: (req) => {
        const p = req.messages[0]!.content;
        prompts.push(p);
        // say "relevant" for the text containing "instrument", else not
        const verdicts = [...p.matchAll(/<text id="([A-Z])">([^<]*)<\/text>/g)]
          .map(
            ([, id, t]) =>
              `<verdict id="${id}">${t!.includes('instrument') ? 'relevant' : 'not relevant'}</verdict>`,
          )
          .join('');
        return `<judgement>${verdicts}</judgement>`;
      },
    });
    const v = await createLlmJudge(backend).judge(
      input('The instrument.', { others: [d('o', 'a male singer')] }),
    );
    expect(v).toMatchObject({ judge: 'llm:judge-model', score: 1, threshold: 1, passed: true });
    expect(prompts[0]).toContain('<instruction>The instrument.</instruction>');
    expect(prompts[0]).not.toMatch(/\bt\b.*docid|<text id="t"/);
  });
  it('fails verification on an unreadable judgement', async () => {
    const backend = createScriptedBackend({ answer: () => null, chat: () => 'yes' });
    const v = await createLlmJudge(backend).judge(input('x'));
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.details).toMatchObject({ error: 'unreadable judgement' });
  });
});

describe('lexical judge clause reading', () => {
  it('"unless" turns its second half into a requirement (regression: it counted against the target)', async () => {
    const v = await createLexicalJudge().judge({
      seedId: 's',
      query: 'eggs',
      newInstruction: 'Leave out anything on eggs unless it would mention altitude.',
      positive: d('p', 'boil eggs six minutes'),
      target: d('t', 'boil eggs longer at altitude'),
      otherNegatives: [],
    });
    expect(v.passed).toBe(true);
  });
});
