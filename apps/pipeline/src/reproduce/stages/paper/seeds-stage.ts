/**
 * Stage `seeds` (paper profile): the Promptriever seed data from the Hub at its pinned revision
 * (@dv/data fetchRegisteredDataset, cache first), read with readPromptriever into
 *   seeds.train.jsonl    rows with an instruction, as SeedExamples (what synthesis reverses);
 *   general.train.jsonl  rows without one, as general TrainingExamples (the All-* mixes):
 *                        query, D+ = positives[0], the mined hard negatives as negatives.
 * The file names are the mini world's (MINI_FILES), so the mixes and report stages read both
 * profiles alike. `seeds.json` records the repo, the resolved commit and the files read.
 */
import { join } from 'node:path';
import type { RunConfig } from '@dv/core';
import { DataError, SeedExample, TrainingExample, writeJsonAtomic, writeJsonl } from '@dv/core';
import { fetchRegisteredDataset, hubDatasetEntry, MINI_FILES, readPromptriever } from '@dv/data';
import { paperHubOptions, requirePaper } from '../../internal/paper-hub.js';
import { stageFiles } from '../../internal/stage-files.js';
import { configuredRevision } from '../../paper-config.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';

export const SEEDS_STAGE = 'seeds';

export function seedsStage(config: RunConfig): StageSpec {
  const paper = requirePaper(config);
  const name = paper.seeds.dataset;
  const entry = hubDatasetEntry(name);
  const revision = configuredRevision(paper, name) ?? entry.revision;
  const include = paper.seeds.include ?? entry.include;
  return {
    id: SEEDS_STAGE,
    group: 'seeds',
    deps: [],
    code: [{ package: '@dv/data' }, stageFileCode('paper/seeds-stage.ts')],
    config: { seeds: paper.seeds, repo: entry.repo, revision, include: include ?? null },
    // ~980k parquet rows stream at roughly 20k rows/s (two passes)
    estimateSeconds:
      5 + ((paper.seeds.instructionSeeds ?? 490_000) + (paper.seeds.generalExamples ?? 490_000)) / 10_000,
    async run(ctx) {
      if (!revision)
        throw new DataError(
          `dataset '${name}' (${entry.repo}) has no pinned revision: set paper.datasets [{"name":"${name}","revision":"<40-hex commit>"}]`,
        );
      const got = await fetchRegisteredDataset(name, {
        ...paperHubOptions(paper),
        revision,
        ...(include ? { include } : {}),
      });
      const files = [...got.files].sort();
      const opts = { dataset: entry.repo, revision: got.commit };
      ctx.log(`${entry.repo}@${got.commit.slice(0, 12)}: ${files.length} file(s)`);
      const max = paper.seeds.instructionSeeds ?? Number.POSITIVE_INFINITY;
      const seedsPath = join(ctx.dir, MINI_FILES.seedsTrain);
      const nSeeds = await writeJsonl(
        seedsPath,
        (async function* () {
          let n = 0;
          for await (const s of readPromptriever(files, opts)) {
            if (n >= max) return;
            if (!s.hasInstruction || s.instruction.text.trim() === '') continue;
            n++;
            yield s;
          }
        })(),
        SeedExample,
      );
      await ctx.checkpoint('seeds written');
      const maxGeneral = paper.seeds.generalExamples ?? Number.POSITIVE_INFINITY;
      const k = paper.seeds.generalNegatives;
      const nGeneral = await writeJsonl(
        join(ctx.dir, MINI_FILES.general),
        (async function* () {
          let n = 0;
          for await (const s of readPromptriever(files, opts)) {
            if (n >= maxGeneral) return;
            if (s.hasInstruction && s.instruction.text.trim() !== '') continue;
            n++;
            yield {
              id: `general-${s.id}`,
              query: s.query,
              instruction: null,
              positives: s.positives.slice(0, 1),
              negatives: s.hardNegatives.slice(0, k),
              view: 'general' as const,
              seedId: s.id,
            };
          }
        })(),
        TrainingExample,
      );
      if (nSeeds === 0)
        throw new DataError(`no rows with an instruction in ${entry.repo}@${got.commit}`, files[0]);
      await writeJsonAtomic(join(ctx.dir, 'seeds.json'), {
        dataset: name,
        repo: entry.repo,
        revision,
        commit: got.commit,
        files: files.map((f) => f.slice(got.dir.length + 1)),
        instructionSeeds: nSeeds,
        generalExamples: nGeneral,
      });
      ctx.log(`${nSeeds} instruction seeds, ${nGeneral} general examples`);
      return {
        outputs: stageFiles(ctx.dir),
        summary: { repo: entry.repo, commit: got.commit, seedsTrain: nSeeds, general: nGeneral },
      };
    },
  };
}
