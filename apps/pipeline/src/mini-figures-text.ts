/**
 * The text report of `dv data stats`: a mini world's quality figures (mini-figures.ts) as
 * lines: BM25 p-MRR and Score per FollowIR-form split, the word-matching rule, lever and
 * attribute shares, leakage, wording overlap, InfoSearch-style leakage, the offline reverser.
 */
import { LEXICAL_RULE_BAND, type MiniFigures } from './mini-figures.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const shares = (r: Record<string, number>) =>
  Object.entries(r)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${pct(v)}`)
    .join(', ');

export function printFigures(w: (line: string) => void, f: MiniFigures): void {
  for (const [name, b] of [
    ['FollowIR-form (held-out wording)', f.followir],
    ['FollowIR-form (seen wording)', f.followirSeen],
  ] as const) {
    if (!b) continue;
    w(`${name}: ${b.topics} topics`);
    w(`  BM25: p-MRR ${b.bm25.pMrr.toFixed(1)}, Score (nDCG@5) ${b.bm25.score.toFixed(1)}`);
    const rule = b.bm25.lexicalRule;
    const gap = rule.pMrr - b.bm25.pMrr;
    w(
      `  word-matching rule (BM25 + added-word rule, no model): p-MRR ${rule.pMrr.toFixed(1)} (${gap >= 0 ? '+' : ''}${gap.toFixed(1)} over BM25; ${Math.abs(gap) <= LEXICAL_RULE_BAND ? 'within' : 'outside'} the ${LEXICAL_RULE_BAND}-point band of a benchmark word matching cannot win); neutral on ${rule.neutralTopics} of ${rule.topics} topics`,
    );
    w(
      `  BM25 p-MRR per change lever: ${Object.entries(b.bm25.pMrrByLever)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
    w(`  change levers: ${shares(b.leverShares)} (max ${pct(b.maxLeverShare)})`);
    w(`  constrained attribute: ${shares(b.attributeShares)}`);
    w(
      `  vacuous og: ${pct(b.vacuousOgShare)}; og relevant a strict subset of judged: ${pct(b.selectiveOgShare)}`,
    );
    w(
      `  leakage: change words in a removed doc ${pct(b.leakage.removed)} of topics, in a kept doc ${pct(b.leakage.kept)} (ratio ${b.leakage.ratio ?? '-'})`,
    );
    w(`  narrowing violations ${b.narrowingViolations}; self-contradictions ${b.contradictions}`);
    w(
      `  wording: ${b.wording.benchmarkFrames} change frames, ${b.wording.benchmarkFramesInTrainSeeds} of them in the train seeds`,
    );
  }
  w(`Train seed styles: ${shares(f.followir.wording.trainStyleShares)}`);
  w('InfoSearch-style sets (constraint words in instructed-relevant vs reversed-relevant docs):');
  for (const [lever, l] of Object.entries(f.infosearch))
    w(`  ${lever}: ${l.topics} topics, ${pct(l.removed)} vs ${pct(l.kept)} (ratio ${l.ratio ?? '-'})`);
  const r = f.reverser;
  w(
    `Offline reverser: ${r.complements}/${r.seeds} complements (coverage ${pct(r.coverage)}; dev ${pct(r.devCoverage)} of ${r.devSeeds})`,
  );
  w(`  levers: ${shares(r.leverShares)} (${r.leversAtLeast5pct} at >= 5%)`);
  w(
    `  max (frame, lever) skeleton ${pct(r.maxSkeletonShare)}; paraphrases per frame >= ${r.minParaphrasesPerFrame}; query masked distinct ${pct(r.maskedDistinctShare)} (top repeats ${r.topMaskedRepeat})`,
  );
  const c = r.cues;
  w(
    `  cues original vs complement: quoted ${pct(c.original.quoted)} / ${pct(c.complement.quoted)}, first person ${pct(c.original.firstPerson)} / ${pct(c.complement.firstPerson)}, negation ${pct(c.original.negation)} / ${pct(c.complement.negation)}`,
  );
  w(
    `  accepted by the text-only judge ${pct(r.textJudgePassShare)}, by the metadata judge ${pct(r.metadataJudgePassShare)}`,
  );
}
