/**
 * The polarity-reversal prompt, version 1: our own wording of the template the paper describes
 * in its Appendix A (described there, never transcribed; see shared/PAPER.md, "Method").
 *
 * Sections, in the order the paper lists them: inputs (query, original instruction, positive
 * passage, the specified instruction negative, the remaining instruction negatives, possibly
 * empty), goal (swap the polarity of the positive and the specified negative, keep every other
 * negative a negative), definitions (pure-query relevance, instruction negatives, kinds of
 * exclusion), method (profile attributes, pick reversal levers), guardrails, and the output
 * contract: `<answer><new_instruction>...</new_instruction></answer>` or `<answer>None</answer>`.
 *
 * Passages are shown under neutral labels (never their docids) so that the model has no id to
 * copy into the instruction. Changing any wording here means bumping `version`: the version and
 * the rendered prompt's hash go into every synthesis record and its cache key.
 */
import type { ChatMessage } from '@dv/core';
import type { PromptTemplate, TemplateInput } from './prompt-template.js';

const SYSTEM = `You write search instructions for an instruction-following retrieval dataset.
You reason about what makes a text relevant to a search request and you answer in the exact XML format requested.`;

const DEFINITIONS = `## Definitions
- Pure-query relevance: a text is relevant to the query alone when it satisfies the user's information need as the query states it, with no further constraint.
- Instruction: extra text after the query that narrows what counts as relevant.
- Instruction negative: a text that is relevant to the query alone but that the instruction excludes. Typical exclusions are by scope or subject domain, geography or region, timeframe, format or length, source or genre, audience or register, methodology, required artifacts (a number, an example, a definition), or an explicit "not about X".`;

const METHOD = `## Method
1. Profile the POSITIVE and the TARGET: for each, note its domain or category, what kind of thing it describes, region, timeframe, audience, style or register, format and length, methodology, artifacts it contains (examples, figures, dates), and distinctive terms.
2. Find the attributes the TARGET has and the POSITIVE lacks (and that the OTHER NEGATIVES also lack). Good reversal levers: domain, region, timeframe, audience, style, format, methodology, required artifacts, explicit exclusions.
3. Write one new instruction that requires the TARGET's attributes, or explicitly excludes the POSITIVE's, so that under the query plus the new instruction the TARGET is relevant, the POSITIVE is not, and each OTHER NEGATIVE stays not relevant.`;

const GUARDRAILS = `## Guardrails
- Do not change the query or the texts; only write the new instruction.
- The new instruction must read differently from the original: a different format and perspective (for example a persona or a background statement instead of a bare constraint, or the reverse), not a copy with a few words swapped.
- At most two sentences. Be concise and natural, as a real user would write it.
- Never mention the task itself: no words such as "passage", "document", "negative", "positive", "label", "instruction" or "query", and no identifiers or labels of the texts.
- Vary your wording across examples; do not reuse a stock phrase.
- If no natural instruction can make the TARGET relevant and the POSITIVE not relevant, answer None.`;

const OUTPUT = `## Output
Think silently, then reply with exactly one XML block and nothing after it:
<answer><new_instruction>YOUR NEW INSTRUCTION</new_instruction></answer>
or, when the reversal is too difficult:
<answer>None</answer>`;

function passageBlock(tag: string, p: { title?: string; text: string }): string {
  const title = p.title?.trim() ? `${p.title.trim()}\n` : '';
  return `<${tag}>\n${title}${p.text.trim()}\n</${tag}>`;
}

function render(input: TemplateInput): ChatMessage[] {
  const others =
    input.otherNegatives.length === 0
      ? '<other_negatives>[]</other_negatives>'
      : `<other_negatives>\n${input.otherNegatives.map((p) => passageBlock('text', p)).join('\n')}\n</other_negatives>`;
  const user = `## Goal
You are given a search query, its original instruction, a POSITIVE text that is relevant under the original instruction, a TARGET text that is an instruction negative (relevant to the query alone but excluded by the original instruction), and zero or more OTHER NEGATIVES.
Write a new instruction for the same query under which the polarity is reversed: the TARGET becomes relevant and the POSITIVE becomes not relevant, while every OTHER NEGATIVE keeps its status (not relevant).

${DEFINITIONS}

${METHOD}

${GUARDRAILS}

## Inputs
<query>${input.query.trim()}</query>
<original_instruction>${input.instruction.trim()}</original_instruction>
${passageBlock('positive', input.positive)}
${passageBlock('target', input.target)}
${others}

${OUTPUT}`;
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

export const polarityReversalV1 = {
  id: 'polarity-reversal',
  version: '1',
  description: 'Appendix A of the dual-view paper, in our own words: reverse one relevance judgement.',
  render,
} as const satisfies PromptTemplate;
