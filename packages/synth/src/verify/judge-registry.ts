/**
 * The verification judges, by the names of @dv/core's `SynthesisJudgeName`, with their default
 * pass thresholds (the one place they are written) and factories. `createJudge` refuses a
 * threshold above the judge's highest score, which would reject every instruction.
 *
 * - `lexical`: the offline lexical/attribute check (lexical-judge.ts), threshold 0.25 on
 *   score(D-) - score(D+) in [-2, 2].
 * - `lexical-text`: the same check on title and text only (no metadata), threshold 0.25.
 * - `lexical-metadata`: the same check with each document's metadata (WordNet category, hypernyms,
 *   domains) as extra evidence, threshold 0.25: the mini reproduction's judge, where documents carry it.
 * - `llm`: an LLM judge through the run's endpoint (llm-judge.ts), threshold 1 (every verdict right).
 */
import type { SynthesisJudgeName } from '@dv/core';
import type { SynthesisBackend } from '../backends/synthesis-backend.js';
import { SynthesisConfigError } from '../synthesis-config-error.js';
import type { Judge } from './judge.js';
import { createLexicalJudge } from './lexical-judge.js';
import { createLlmJudge } from './llm-judge.js';

export interface JudgeEntry {
  /** One line for help texts. */
  readonly description: string;
  /** Pass threshold when the config gives none. */
  readonly defaultThreshold: number;
  /** Needs the OpenAI-compatible endpoint (`baseURLs`). */
  readonly needsEndpoint: boolean;
  readonly create: (threshold: number, chat: () => SynthesisBackend) => Judge;
}

export const synthesisJudges = Object.freeze({
  lexical: {
    description: 'offline lexical/attribute check',
    defaultThreshold: 0.25,
    needsEndpoint: false,
    create: (threshold) => createLexicalJudge(threshold),
  },
  'lexical-text': {
    description: 'lexical check on title+text only, no metadata',
    defaultThreshold: 0.25,
    needsEndpoint: false,
    create: (threshold) => createLexicalJudge(threshold, { useMetadata: false }),
  },
  'lexical-metadata': {
    description: 'lexical check that also reads document metadata (mini world)',
    defaultThreshold: 0.25,
    needsEndpoint: false,
    create: (threshold) => createLexicalJudge(threshold, { useMetadata: true }),
  },
  llm: {
    description: 'an LLM judge through the same endpoints',
    defaultThreshold: 1,
    needsEndpoint: true,
    create: (threshold, chat) => createLlmJudge(chat(), threshold),
  },
} as const satisfies Record<SynthesisJudgeName, JudgeEntry>);

/** The judge names, in registry order (for option choices). */
export const synthesisJudgeNames = Object.keys(synthesisJudges) as SynthesisJudgeName[];

/**
 * The judge `name` with `threshold` (default: the registry's). Throws a `SynthesisConfigError`
 * on `judgeThreshold` when the threshold is above the judge's highest score.
 */
export function createJudge(
  name: SynthesisJudgeName,
  threshold: number | undefined,
  chat: () => SynthesisBackend = () => {
    throw new SynthesisConfigError('baseURLs', 'is required for the llm judge');
  },
): Judge {
  const entry: JudgeEntry = synthesisJudges[name];
  const judge = entry.create(threshold ?? entry.defaultThreshold, chat);
  if (judge.threshold > judge.maxScore)
    throw new SynthesisConfigError(
      'judgeThreshold',
      `${judge.threshold} is above the highest score the ${judge.name} judge gives (${judge.maxScore}): it would reject every instruction`,
    );
  return judge;
}
