import { describe, expect, it } from 'vitest';
import { checkGuardrails, countSentences, jaccard } from './guardrails.js';

const base = {
  originalInstruction: 'I am only interested in bass as a fish, nothing else.',
  query: 'bass',
  docids: ['bass-0-1', 'D123'],
};
const reason = (newInstruction: string, extra: Partial<typeof base & { answeredQuery: string }> = {}) => {
  const r = checkGuardrails({ ...base, ...extra, newInstruction });
  return r.ok ? 'ok' : r.reason;
};

describe('guardrails', () => {
  it('passes a concise, different, clean instruction', () => {
    expect(reason('Leave out the fish; I want the stringed instrument.')).toBe('ok');
  });
  it('names each rejection', () => {
    expect(reason('   ')).toBe('empty');
    expect(reason('One. Two! Three?')).toBe('too-many-sentences');
    expect(reason('I am only interested in bass as a singer, nothing else.')).toBe('copies-original');
    expect(reason('Prefer what D123 says about the instrument.')).toBe('mentions-passage-id');
    expect(reason('Only the second passage about instruments counts.')).toBe('meta-language');
    expect(reason('The negative one is right.')).toBe('meta-language');
    expect(reason('Instruments only.', { answeredQuery: 'bass guitar' })).toBe('edits-query');
    expect(reason('Query: bass guitar strings')).toBe('edits-query');
  });
  it('allows meta words that are the query itself', () => {
    const r = checkGuardrails({
      ...base,
      query: 'passage',
      newInstruction: 'The passage of a bill through parliament.',
    });
    expect(r.ok).toBe(true);
    expect(reason('The passage of a bill.')).toBe('meta-language');
  });
  it('does not count abbreviations and decimals as sentence ends', () => {
    expect(countSentences('Prices e.g. 2.5 dollars count. Nothing else.')).toBe(2);
    expect(reason('Prices e.g. 2.5 dollars count. Nothing else.')).toBe('ok');
  });
  it('an id inside a longer word is not a mention', () => {
    expect(reason('Favour the D1234 model of instrument.')).toBe('ok');
  });
  it('jaccard is symmetric and 1 for equal token sets', () => {
    expect(jaccard('a b c', 'c b a')).toBe(1);
    expect(jaccard('a b', 'b c')).toBeCloseTo(1 / 3);
  });
});
