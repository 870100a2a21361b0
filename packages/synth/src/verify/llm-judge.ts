/**
 * Verification by an LLM judge through the same backends (anything with `chat`). One call per
 * record: the query, I' and the candidate texts under neutral labels (A, B, ...; order shuffled
 * by a hash of the seed so the target is not always first); the judge answers
 * `<verdict id="A">relevant</verdict>` or `not relevant` for each.
 *
 * score = share of correct verdicts (target relevant; positive and other negatives not);
 * passed when score >= threshold (default 1: every verdict right). An unreadable judgement
 * fails verification with `details.error`.
 */
import type { Verification } from '@dv/core';
import type { SynthesisBackend } from '../backends/synthesis-backend.js';
import { hash32 } from '../internal/text.js';
import type { Judge, JudgeInput } from './judge.js';

export const judgeTemplate = { id: 'relevance-judge', version: '1' } as const;

export function renderJudgePrompt(
  query: string,
  instruction: string,
  texts: Array<{ id: string; text: string }>,
): string {
  return `<judge_request>
Decide for each text whether it is relevant to the search request: the query together with the instruction. A text is relevant only if it matches the query AND satisfies every constraint of the instruction.
<query>${query}</query>
<instruction>${instruction}</instruction>
${texts.map((t) => `<text id="${t.id}">${t.text}</text>`).join('\n')}
Answer with one XML block and nothing else: <judgement><verdict id="A">relevant</verdict><verdict id="B">not relevant</verdict>...</judgement>
</judge_request>`;
}

export function createLlmJudge(backend: SynthesisBackend, threshold = 1): Judge {
  if (!backend.chat) throw new Error(`backend '${backend.name}' cannot chat, so it cannot judge`);
  const chat = backend.chat.bind(backend);
  return {
    name: `llm:${backend.model}`,
    threshold,
    maxScore: 1, // the share of candidates judged right
    async judge(input: JudgeInput, signal?: AbortSignal): Promise<Verification> {
      const cands = [
        { role: 'target', p: input.target },
        { role: 'positive', p: input.positive },
        ...input.otherNegatives.map((p) => ({ role: 'other', p })),
      ];
      const shift = hash32(input.seedId) % cands.length;
      const ordered = cands.map((_, i) => cands[(i + shift) % cands.length]!);
      const labelled = ordered.map((c, i) => ({ ...c, id: String.fromCharCode(65 + i) }));
      const prompt = renderJudgePrompt(
        input.query,
        input.newInstruction,
        labelled.map((c) => ({ id: c.id, text: `${c.p.title ? `${c.p.title}\n` : ''}${c.p.text}` })),
      );
      const res = await chat({ messages: [{ role: 'user', content: prompt }], temperature: 0 }, signal);
      const verdicts = new Map<string, boolean>();
      for (const m of (res.text ?? '').matchAll(
        /<verdict id="([A-Z])">\s*(not relevant|relevant)\s*<\/verdict>/gi,
      ))
        verdicts.set(m[1]!, m[2]!.toLowerCase() === 'relevant');
      const name = `llm:${backend.model}`;
      if (labelled.some((c) => !verdicts.has(c.id)))
        return {
          judge: name,
          score: 0,
          threshold,
          passed: false,
          details: { error: 'unreadable judgement', raw: (res.text ?? '').slice(0, 500), usage: res.usage },
        };
      const correct = labelled.filter((c) => verdicts.get(c.id) === (c.role === 'target')).length;
      const score = correct / labelled.length;
      return {
        judge: name,
        score,
        threshold,
        passed: score >= threshold,
        details: {
          verdicts: Object.fromEntries(
            labelled.map((c) => [c.role === 'other' ? `other:${c.p.docid}` : c.role, verdicts.get(c.id)]),
          ),
          usage: res.usage,
        },
      };
    },
  };
}
