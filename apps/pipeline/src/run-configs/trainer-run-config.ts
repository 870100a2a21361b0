/**
 * The configs of the training commands, resolved in one place: `dv train run` and `dv train
 * export` read the trainer config as preset <- `--config FILE` (strict keys) <- flags, and
 * `dv train mlm` / `--backbone` the MLM config as the mini preset <- flags; one zod parse each.
 */
import { readFileSync } from 'node:fs';
import {
  describeUnknownKeys,
  describeZodIssues,
  MlmConfig,
  mergeConfig,
  miniMlmPreset,
  TrainerConfig,
  trainerPresets,
  unknownConfigKeys,
} from '@dv/core';
import { type DeepPartial, UsageError } from '../cli-kit.js';

type Json = Record<string, unknown>;

/** The trainer config: preset <- `--config FILE` <- the flags' settings, validated. */
export function trainerRunConfig(opts: {
  preset: string;
  configFile?: string | undefined;
  flags?: DeepPartial<TrainerConfig> | undefined;
}): TrainerConfig {
  const { preset, configFile: file, flags = {} } = opts;
  if (!(preset in trainerPresets))
    throw new UsageError(
      `--preset must be one of ${Object.keys(trainerPresets).join(', ')}, got '${preset}'`,
    );
  let config = trainerPresets[preset as keyof typeof trainerPresets].config as unknown as Json;
  if (file) {
    let json: unknown;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      json = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`--config ${file}: ${(err as Error).message}`);
    }
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw new UsageError(`--config ${file}: expected a JSON object (a trainer config)`);
    // strict: a misspelt key would otherwise be dropped by zod and the preset's value used
    const unknown = unknownConfigKeys(TrainerConfig, json);
    if (unknown.length) throw new UsageError(describeUnknownKeys(unknown, file, text));
    config = mergeConfig(config, json as Json);
  }
  config = mergeConfig(config, flags as Json);
  // --epochs without --steps: train for the epochs, not the preset's step count
  if (flags.batch?.epochs !== undefined && flags.batch.steps === undefined)
    delete (config.batch as Json).steps;
  const parsed = TrainerConfig.safeParse(config);
  if (!parsed.success)
    throw new UsageError(
      `invalid trainer config${file ? ` (${file})` : ''}: ${describeZodIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

/** The MLM config of `dv train mlm` / `--backbone`: the mini preset <- the flags' settings. */
export function mlmRunConfig(flags: DeepPartial<MlmConfig> = {}, backbone?: string): MlmConfig {
  const parsed = MlmConfig.safeParse(
    mergeConfig(miniMlmPreset.config as unknown as Json, {
      ...(flags as Json),
      ...(backbone ? { backbone } : {}),
    }),
  );
  if (!parsed.success) throw new UsageError(`invalid MLM config: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}
