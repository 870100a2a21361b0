/**
 * Offline verification by a lexical / attribute check: no model, deterministic.
 *
 * I' is split into clauses (at `;`, `,`, `.`, "but" and "unless", whose second half is always a
 * requirement); a clause with a negation cue ("not",
 * "no use for", "leave out", "skip", "except", "misses the point"...) counts against, the others
 * for. Each document's evidence is its title and text (with `useMetadata`, also the readable
 * forms of its metadata attributes: category phrase, hypernyms, domains, "example"). A
 * document's score is the share of "for" terms it contains minus the share of "against" terms,
 * plus +1/-1 for each length constraint ("under N words", "longer than N words") it meets or
 * breaks. Terms are stemmed content words of I' minus the query's and a list of filler words.
 *
 * By default the judge reads title and text only (name `lexical`): whether I' is grounded in
 * what a text encoder will see. `createLexicalJudge(t, { useMetadata: true })`
 * ("lexical-metadata", opt-in) also reads the readable forms of the metadata attributes; it
 * accepts complements that rest on metadata nobody sees, so it is not the default.
 *
 * Passed when score(D-) - score(D+) >= threshold (default 0.25) and D- also outscores every
 * other instruction negative. `score` on the record is score(D-) - score(D+).
 */
import type { Passage, Verification } from '@dv/core';
import { evidenceOf, FILLER } from '../internal/evidence.js';
import { contentStems } from '../internal/text.js';
import type { Judge, JudgeInput } from './judge.js';

const NEGATION =
  /\b(not|no|nothing|never|without|except|exclud\w*|skip|avoid|leave out|no use for|misses the point|rather than|instead of)\b/i;

interface Clause {
  negated: boolean;
  terms: string[];
  shorterThan?: number;
  longerThan?: number;
}

function clauses(instruction: string, query: string): Clause[] {
  const q = new Set(contentStems(query));
  // "X unless Y": X is an exclusion, Y a requirement, so Y becomes a clause of its own that
  // is never negated.
  const parts = instruction
    .split(/[;,.]|\bbut\b/i)
    .flatMap((c) => {
      const [before, ...after] = c.split(/\bunless\b/i);
      return after.length
        ? [
            { c: before!, forcePositive: false },
            { c: after.join(' '), forcePositive: true },
          ]
        : [{ c, forcePositive: false }];
    })
    .filter((p) => p.c.trim());
  return parts.map(({ c, forcePositive }) => {
    const shorter = /\b(?:under|fewer than|shorter than|less than)\s+(\d+)\s+words\b/i.exec(c);
    const longer = /\b(?:over|more than|longer than)\s+(\d+)\s+words\b/i.exec(c);
    return {
      negated: !forcePositive && NEGATION.test(c),
      terms: [...new Set(contentStems(c).filter((t) => !q.has(t) && !FILLER.has(t)))],
      ...(shorter ? { shorterThan: Number(shorter[1]) } : {}),
      ...(longer ? { longerThan: Number(longer[1]) } : {}),
    };
  });
}

export function lexicalScore(p: Passage, cs: Clause[], useMetadata = false): number {
  const ev = evidenceOf(p, useMetadata);
  const forTerms = cs.filter((c) => !c.negated).flatMap((c) => c.terms);
  const againstTerms = cs.filter((c) => c.negated).flatMap((c) => c.terms);
  const share = (ts: string[]) =>
    ts.length === 0 ? 0 : ts.filter((t) => ev.stems.has(t)).length / ts.length;
  let score = share(forTerms) - share(againstTerms);
  for (const c of cs) {
    const sign = c.negated ? -1 : 1;
    if (c.shorterThan !== undefined) score += sign * (ev.wordCount < c.shorterThan ? 1 : -1);
    if (c.longerThan !== undefined) score += sign * (ev.wordCount > c.longerThan ? 1 : -1);
  }
  return score;
}

export function createLexicalJudge(threshold = 0.25, options: { useMetadata?: boolean } = {}): Judge {
  const meta = options.useMetadata ?? false;
  const name = meta ? 'lexical-metadata' : 'lexical';
  return {
    name,
    threshold,
    // each document scores in [-1, 1] without length constraints, so score(D-) - score(D+) <= 2
    maxScore: 2,
    async judge(input: JudgeInput): Promise<Verification> {
      const cs = clauses(input.newInstruction, input.query);
      const t = lexicalScore(input.target, cs, meta);
      const p = lexicalScore(input.positive, cs, meta);
      const others = input.otherNegatives.map((o) => lexicalScore(o, cs, meta));
      const score = Number((t - p).toFixed(4));
      const othersOk = others.every((o) => t > o);
      return {
        judge: name,
        score,
        threshold,
        passed: score >= threshold && othersOk,
        details: { target: t, positive: p, others, othersBelowTarget: othersOk },
      };
    },
  };
}
