/**
 * Builds the four matched-budget mixes from a synth output folder (`original.jsonl`,
 * `complement.jsonl`) plus optional general data, and writes each as our training JSONL
 * (`<out>/<mix>/train.jsonl`) and in the requested trainer formats, with `mixes.json` (the
 * checked counts and what each mix covers: `mixComposition`) and a manifest.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  DataError,
  type DataMix,
  DEFAULT_SEED,
  DualViewExample,
  type FormatterSettings,
  readJsonlAll,
  TrainingExample,
  writeJsonAtomic,
  writeJsonl,
  writeManifest,
} from '@dv/core';
import { z } from 'zod';
import { OUTPUT_FILES } from './finalize-run.js';
import { type MixComposition, mixComposition } from './mix-composition.js';
import { buildMixes, countMix, type MixCounts, type MixExample } from './mixes.js';
import { exportForTrainers, type TrainerFormat } from './trainer-exports.js';

export interface WriteMixesOptions {
  synthDir: string;
  generalPath?: string;
  outDir: string;
  budget: number;
  instructionExamples?: number;
  seed?: number;
  formats?: TrainerFormat[];
  formatter?: FormatterSettings;
  maxNegatives?: number;
  mixes?: DataMix[];
  command?: string[];
}

/** One mix in `mixes.json`: its checked counts, what it covers, and its files. */
export type MixSummary = MixCounts & { composition: MixComposition; files: Record<string, string> };

const MixLine = z.union([DualViewExample, TrainingExample]);

export async function writeMixes(o: WriteMixesOptions): Promise<Record<string, MixSummary>> {
  const need = (p: string) => {
    if (!existsSync(p)) throw new DataError('not found (run `dv synth` first)', p);
    return p;
  };
  const originalsPath = need(join(o.synthDir, OUTPUT_FILES.original));
  const complementsPath = need(join(o.synthDir, OUTPUT_FILES.complement));
  const originals = await readJsonlAll(originalsPath, TrainingExample, { uniqueBy: (r) => r.id });
  const complements = await readJsonlAll(complementsPath, DualViewExample, { uniqueBy: (r) => r.id });
  const general = o.generalPath ? await readJsonlAll(o.generalPath, TrainingExample) : [];
  for (const [i, g] of general.entries())
    if (g.view !== 'general')
      throw new DataError(`expected view "general", got "${g.view}"`, o.generalPath, i + 1);
  const mixes = buildMixes({
    originals,
    complements,
    general,
    budget: o.budget,
    ...(o.instructionExamples !== undefined ? { instructionExamples: o.instructionExamples } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.mixes ? { mixes: o.mixes } : {}),
  });
  const out: Record<string, MixSummary> = {};
  const outputs: string[] = [];
  for (const [name, examples] of Object.entries(mixes) as Array<[DataMix, MixExample[]]>) {
    const dir = join(o.outDir, name);
    const train = join(dir, 'train.jsonl');
    await writeJsonl(train, examples, MixLine);
    const files = {
      train,
      ...(await exportForTrainers(examples, dir, o.formats ?? [], {
        ...(o.formatter ? { formatter: o.formatter } : {}),
        ...(o.maxNegatives !== undefined ? { maxNegatives: o.maxNegatives } : {}),
      })),
    };
    outputs.push(...Object.values(files));
    out[name] = { ...countMix(examples), composition: mixComposition(examples), files };
  }
  await writeJsonAtomic(join(o.outDir, 'mixes.json'), out);
  await writeManifest(o.outDir, {
    kind: 'synth-mix',
    config: {
      budget: o.budget,
      instructionExamples: o.instructionExamples ?? o.budget / 2,
      seed: o.seed ?? DEFAULT_SEED,
      formats: o.formats ?? [],
    },
    ...(o.formatter ? { formatter: o.formatter } : {}),
    ...(o.seed !== undefined ? { seeds: [o.seed] } : {}),
    ...(o.command ? { command: o.command } : {}),
    inputs: [originalsPath, complementsPath, ...(o.generalPath ? [o.generalPath] : [])],
    outputs,
  });
  return out;
}
