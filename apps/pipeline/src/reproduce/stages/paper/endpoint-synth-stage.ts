/**
 * Stage `synth` (paper profile): complementary instructions for the Promptriever seeds through
 * the OpenAI-compatible chat endpoint (@dv/synth createOpenAIChatBackend: bounded concurrency,
 * retries with backoff, round-robin over `baseURLs`), verified by the configured judge; the same
 * library entry `dv synth --backend openai` calls (createSynthesisRun). The run journals every
 * answer, so a rerun after a crash or an outage asks only for the seeds still missing.
 * Outputs as the mini profile's synth stage: `train/{original,complement,records}.jsonl`.
 */
import { join } from 'node:path';
import type { RunConfig } from '@dv/core';
import { SynthesisRunConfig, synthesisJudgeOf } from '@dv/core';
import { MINI_FILES } from '@dv/data';
import { createSynthesisRun } from '@dv/synth';
import { requirePaper } from '../../internal/paper-hub.js';
import { stageFiles } from '../../internal/stage-files.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';
import { SYNTH_DIRS } from '../synth-stage.js';
import { SEEDS_STAGE } from './seeds-stage.js';

export function endpointSynthStage(config: Pick<RunConfig, 'paper' | 'synthesis' | 'train'>): StageSpec {
  const paper = requirePaper(config);
  const s = config.synthesis;
  const judge = synthesisJudgeOf(s);
  const templateId = s.templateId;
  return {
    id: 'synth',
    group: 'synth',
    deps: [SEEDS_STAGE],
    code: [{ package: '@dv/synth' }, stageFileCode('paper/endpoint-synth-stage.ts')],
    // the endpoint addresses and the key's variable do not change answers: not in the key
    config: {
      model: s.model,
      temperature: s.temperature,
      maxTokens: s.maxTokens,
      judge,
      judgeThreshold: s.judgeThreshold,
      templateId,
      formatter: config.train.formatter,
    },
    estimateSeconds: 5 + ((paper.seeds.instructionSeeds ?? 490_000) / Math.max(1, s.concurrency)) * 2,
    async run(ctx) {
      // The same library entry as `dv synth --backend openai`: backend, judge, ledger and key
      // redaction are set up by createSynthesisRun from one validated config.
      const run = await createSynthesisRun(
        SynthesisRunConfig.parse({
          seedsPath: join(ctx.depDir(SEEDS_STAGE), MINI_FILES.seedsTrain),
          outDir: join(ctx.dir, SYNTH_DIRS.train),
          formatter: config.train.formatter,
          synthesis: {
            backend: 'openai',
            model: s.model,
            baseURLs: s.baseURLs,
            apiKeyEnv: s.apiKeyEnv,
            temperature: s.temperature,
            maxTokens: s.maxTokens,
            concurrency: s.concurrency,
            requestTimeoutMs: s.requestTimeoutMs,
            maxRetries: s.maxRetries,
            templateId,
            verify: judge !== 'none',
            ...(judge === 'none'
              ? {}
              : { judge, ...(s.judgeThreshold !== undefined ? { judgeThreshold: s.judgeThreshold } : {}) }),
          },
        }),
        { progressMode: 'silent', command: ['dv', 'reproduce', '--profile', 'paper'], signal: ctx.signal },
      );
      const result = await run.run();
      if (result.kind !== 'synthesized')
        throw new Error('the openai backend exported instead of synthesizing');
      const r = result.summary;
      ctx.log(
        `${r.seeds} seeds via ${s.model}: accepted ${r.accepted} (${(100 * r.acceptanceRate).toFixed(1)}%), none ${r.none}, rejected ${r.rejected}, failed ${r.failed}`,
      );
      if (r.accepted === 0)
        throw new Error(
          `synthesis accepted no complement (${r.failed} failed, ${r.rejected} rejected); see ${join(ctx.dir, SYNTH_DIRS.train)}`,
        );
      return {
        outputs: stageFiles(ctx.dir),
        summary: {
          train: {
            seeds: r.seeds,
            accepted: r.accepted,
            none: r.none,
            rejected: r.rejected,
            failed: r.failed,
            acceptanceRate: r.acceptanceRate,
            byLever: r.byLever,
            byReason: r.byReason,
            verification: r.verification,
          },
        },
      };
    },
  };
}
