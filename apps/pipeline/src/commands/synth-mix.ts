/**
 * `dv synth mix`: the paper's matched-budget mixes and trainer exports from a synth output
 * folder (@dv/synth `writeMixes`); budget and K from the flags or a preset's data slice.
 */
import { resolve } from 'node:path';
import { DataMix, DEFAULT_SEED, MixesConfig, type PresetName, prepareOutputDir, presets } from '@dv/core';
import { type TrainerFormat, trainerFormats, writeMixes } from '@dv/synth';
import { z } from 'zod';
import { defineCommand, listOption, requireString, schemaFlags, UsageError } from '../cli-kit.js';

/** The mix build's settings: the mixes slice's budget and K, and the export's own. */
const MixSettings = MixesConfig.pick({ budget: true, instructionExamples: true })
  .partial()
  .extend({
    seed: z.number().int().nonnegative().default(DEFAULT_SEED).describe('selection seed'),
    maxNegatives: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('cap on negatives in sentence-transformers rows'),
  });
const mixFlags = schemaFlags(MixSettings, {
  budget: { path: 'budget', help: 'N, examples per mix (default: the --preset data slice)' },
  'instruction-examples': {
    path: 'instructionExamples',
    valueName: 'K',
    help: 'K, instruction examples in All-* (default N/2)',
  },
  seed: { path: 'seed', valueName: 'S' },
  'max-negatives': 'maxNegatives',
});

export const synthMixCommand = defineCommand({
  name: 'mix',
  summary: 'build matched-budget mixes (Ins-orig, Ins-DV, All-orig, All-DV) and trainer exports',
  usage: '--from SYNTH_DIR --out DIR --budget N|--preset NAME [--general FILE]',
  description: `Builds the paper's four matched-budget mixes from a synth output folder:
Ins-orig = N original examples; Ins-DV = N/2 originals + their N/2 complements; All-orig = K
originals + (N-K) general; All-DV = K/2 pairs + the same (N-K) general (K defaults to N/2).
Counts are checked. Writes <out>/<mix>/train.jsonl and, with --formats, the Tevatron,
sentence-transformers and FlagEmbedding files.`,
  flags: mixFlags,
  options: {
    from: { type: 'string', description: 'synth output folder', valueName: 'DIR' },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    preset: {
      type: 'string',
      description: `${Object.keys(presets).join(' | ')}: budget and K from the preset's mixes slice (RunConfig.mixes)`,
      valueName: 'NAME',
    },
    general: {
      type: 'string',
      description: 'general (no-instruction) TrainingExample JSONL',
      valueName: 'FILE',
    },
    mixes: {
      type: 'string',
      description: 'subset, e.g. ins-orig,ins-dv (default: all four)',
      valueName: 'LIST',
    },
    formats: {
      type: 'string',
      description: `trainer formats: ${Object.keys(trainerFormats).join(', ')}`,
      valueName: 'LIST',
    },
    force: { type: 'boolean', description: "replace another mix build's outputs in --out" },
  },
  async run(ctx) {
    const presetName = ctx.values.preset;
    if (presetName !== undefined && !(presetName in presets))
      throw new UsageError(`unknown preset '${presetName}'; one of ${Object.keys(presets).join(', ')}`);
    const data = presetName ? presets[presetName as PresetName].config.mixes : undefined;
    const { seed, maxNegatives, ...given } = MixSettings.parse(ctx.settings);
    const budget = given.budget ?? data?.budget;
    if (budget === undefined)
      throw new UsageError('--budget is required (or --preset NAME for its data slice)');
    const formats = listOption(ctx, 'formats');
    for (const f of formats)
      if (!(f in trainerFormats))
        throw new UsageError(`unknown format '${f}'; one of ${Object.keys(trainerFormats).join(', ')}`);
    const mixes = listOption(ctx, 'mixes');
    for (const m of mixes)
      if (!(DataMix.options as readonly string[]).includes(m))
        throw new UsageError(`unknown mix '${m}'; one of ${DataMix.options.join(', ')}`);
    const generalPath = ctx.values.general || undefined;
    const k = given.instructionExamples ?? data?.instructionExamples;
    const outDir = requireString(ctx, 'out');
    const synthDir = requireString(ctx, 'from');
    // a folder holds one mix build: other settings need another --out or --force (which
    // removes the old mixes, so mixes.json and the manifest list exactly what is there)
    const claimed = await prepareOutputDir(outDir, {
      kind: 'synth-mix',
      identity: { synthDir: resolve(synthDir), budget, k, generalPath, mixes, seed, formats, maxNegatives },
      force: ctx.values.force === true,
    });
    if (claimed.removed.length)
      ctx.stderr.write(
        `note: --force removed ${claimed.removed.length} files of the previous mixes in ${outDir}\n`,
      );
    const res = await writeMixes({
      synthDir,
      outDir,
      budget,
      ...(generalPath ? { generalPath } : {}),
      ...(k !== undefined ? { instructionExamples: k } : {}),
      ...(maxNegatives !== undefined ? { maxNegatives } : {}),
      seed,
      formats: formats as TrainerFormat[],
      ...(mixes.length ? { mixes: mixes as DataMix[] } : {}),
      // the exported query/document strings use the one formatter, recorded in the manifest
      formatter: presets.mini.config.train.formatter,
      command: ctx.commandLine,
    });
    for (const [name, c] of Object.entries(res)) {
      ctx.stdout.write(
        `${name.padEnd(8)} total ${c.total}: original ${c.original}, complement ${c.complement}, general ${c.general}, pairs ${c.pairs} -> ${Object.values(c.files).join(', ')}\n`,
      );
      const k = c.composition;
      ctx.stdout.write(
        `${''.padEnd(8)} covers ${k.queries} queries (${k.repeatedQueries} more than once), ${k.views} query+instruction views, ${k.documents} documents\n`,
      );
    }
    ctx.stdout.write(`wrote mixes.json and manifest.json in ${outDir}\n`);
    return 0;
  },
});
