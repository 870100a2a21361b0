/**
 * Stage `backbones/<name>` (paper profile): a backbone from the Hub at its configured revision
 * (@dv/data downloadModel: the huggingface_hub cache layout, resumable, hash-checked), as the HF
 * folder the trainer starts from (`export/`, file links into the cache snapshot) and the
 * "untrained" baseline evaluates. `backbone.json` (the stage's hashed output) records the repo,
 * the revision, the resolved commit and each file's size and Hub hash, so a new commit of the
 * backbone redoes everything trained from it.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { DataError, writeJsonAtomic } from '@dv/core';
import { downloadModel, listFiles, matchGlob } from '@dv/data';
import { linkFile } from '../../internal/link-tree.js';
import { paperHubOptions, requirePaper } from '../../internal/paper-hub.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';

export const BACKBONE_EXPORT = 'export';
/** What the trainer and the encoders read (no PyTorch / ONNX / TF weights). */
export const BACKBONE_FILES = ['*.json', 'model.safetensors', '*.txt', 'sentencepiece.bpe.model'] as const;

export const backboneStageId = (name: string) => `backbones/${name}`;

export function backboneStage(config: RunConfig, name: string): StageSpec {
  const paper = requirePaper(config);
  const model = paper.models.find((m) => m.name === name);
  if (!model) throw new Error(`internal: backbone '${name}' is not in paper.models`);
  return {
    id: backboneStageId(name),
    group: 'backbones',
    deps: [],
    code: [{ package: '@dv/data' }, stageFileCode('paper/backbone-stage.ts')],
    config: { repo: model.repo, revision: model.revision, files: BACKBONE_FILES },
    estimateSeconds: 60,
    async run(ctx) {
      const hub = paperHubOptions(paper);
      const bar = ctx.progress(`download ${model.repo}`, undefined, 'bytes');
      const got = await downloadModel(model.repo, model.revision, {
        ...hub,
        include: BACKBONE_FILES,
        onProgress: (_p, received) => bar.update(received),
      });
      bar.done();
      for (const f of ['config.json', 'model.safetensors', 'tokenizer.json'])
        if (!existsSync(join(got.dir, f)))
          throw new DataError(
            `backbone ${model.repo}@${got.commit} has no ${f}: the trainer reads HF BERT-family checkpoints (config.json, model.safetensors, tokenizer.json)`,
          );
      const listed = (await listFiles(model.repo, got.commit, { ...hub, repoType: 'model' })).filter((f) =>
        BACKBONE_FILES.some((g) => matchGlob(g, f.path)),
      );
      const exportDir = join(ctx.dir, BACKBONE_EXPORT);
      for (const f of got.files) linkFile(exportDir, relative(got.dir, f), f);
      const record = join(ctx.dir, 'backbone.json');
      await writeJsonAtomic(record, {
        name,
        repo: model.repo,
        revision: model.revision,
        commit: got.commit,
        files: listed,
      });
      ctx.log(`${model.repo}@${got.commit.slice(0, 12)}: ${listed.length} files`);
      return {
        // the links are not outputs (their targets live in the Hub cache); backbone.json pins them
        outputs: [record],
        summary: { exportDir: BACKBONE_EXPORT, repo: model.repo, commit: got.commit },
      };
    },
  };
}
