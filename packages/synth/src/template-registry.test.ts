import { describe, expect, it } from 'vitest';
import { getTemplate, renderPrompt, templates } from './template-registry.js';

const input = {
  query: 'bass',
  instruction: 'Only the fish.',
  positive: { title: 'bass', text: 'a saltwater fish' },
  target: { text: 'a stringed instrument with the lowest range' },
  otherNegatives: [],
};

describe('template registry', () => {
  it('is frozen and pins a version per template', () => {
    expect(Object.isFrozen(templates)).toBe(true);
    expect(templates['polarity-reversal'].version).toBe('1');
    expect(() => getTemplate('nope')).toThrow(/unknown prompt template 'nope'/);
  });
  it('renders every section of the Appendix A description with the inputs', () => {
    const { messages } = renderPrompt(getTemplate('polarity-reversal'), input);
    const user = messages.at(-1)!.content;
    for (const part of [
      '## Goal',
      '## Definitions',
      'Pure-query relevance',
      'Instruction negative',
      '## Method',
      'domain, region, timeframe, audience, style, format, methodology, required artifacts, explicit exclusions',
      '## Guardrails',
      'At most two sentences',
      '<answer>None</answer>',
      '<new_instruction>',
    ])
      expect(user).toContain(part);
    expect(user).toContain('<query>bass</query>');
    expect(user).toContain('<original_instruction>Only the fish.</original_instruction>');
    expect(user).toContain('<positive>\nbass\na saltwater fish\n</positive>');
    expect(user).toContain('<target>\na stringed instrument with the lowest range\n</target>');
    expect(user).toContain('<other_negatives>[]</other_negatives>');
  });
  it('lists the remaining negatives and hashes the rendered prompt', () => {
    const t = getTemplate('polarity-reversal');
    const a = renderPrompt(t, input);
    const b = renderPrompt(t, { ...input, otherNegatives: [{ text: 'a male singer' }] });
    expect(b.messages.at(-1)!.content).toContain(
      '<other_negatives>\n<text>\na male singer\n</text>\n</other_negatives>',
    );
    expect(a.promptHash).toMatch(/^[0-9a-f]{32}$/);
    expect(a.promptHash).toBe(renderPrompt(t, input).promptHash);
    expect(a.promptHash).not.toBe(b.promptHash);
  });
});
