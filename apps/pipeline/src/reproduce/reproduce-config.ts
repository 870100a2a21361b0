/**
 * The run config of `pnpm reproduce`: @dv/core's `RunConfig`, the one config tree, resolved
 * from a profile's overlay (`runOverlays` in @dv/core presets.ts: `mini`, the default, <= 25 min
 * on 2 cores; `quick`, <= 3 min, 1 seed; `paper`), then a `--config FILE` (JSON) merged over it
 * with @dv/core's `mergeConfig` (objects merge, arrays and scalars replace), then the flags.
 * A key the schema does not read is an error naming it, the file:line and the closest known key
 * (core's `assertKnownConfigKeys`). Sizes and their provenance are the overlays' `sources`;
 * measurements behind them are in docs/results-mini.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  assertKnownConfigKeys,
  DataError,
  describeZodIssues,
  MINI_BACKBONES,
  mergeConfig,
  RunConfig,
  runOverlayInput,
  type runOverlays,
} from '@dv/core';

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The dotted paths where two configs differ (leaves; arrays compare whole), sorted: what a run
 * folder made by another config changes (`pnpm reproduce --out` of another config's folder).
 */
export function configDifferences(a: unknown, b: unknown, path = ''): string[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => configDifferences(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(the whole config)'];
}

export interface ResolveConfigOptions {
  profile: 'mini' | 'paper';
  quick?: boolean;
  /** JSON file merged over the profile. */
  configFile?: string;
  /** `--seeds N` (the profile's first N seeds, then 7919 * i) or `--seeds A,B,C` (these seeds). */
  seeds?: number | readonly number[];
  /** `--world-seed S`: the mini world's seed (another world of the same sizes). */
  worldSeed?: number;
  backbones?: 'default' | 'all';
}

/** The overlay a profile and `--quick` select. */
export function overlayOf(o: Pick<ResolveConfigOptions, 'profile' | 'quick'>): keyof typeof runOverlays {
  return o.profile === 'paper' ? 'paper' : o.quick ? 'quick' : 'mini';
}

/** The run config from a profile, `--quick`, `--config FILE`, `--seeds N|LIST`, `--world-seed S`, `--backbones all`. */
export function resolveReproduceConfig(o: ResolveConfigOptions): RunConfig {
  let raw: Record<string, unknown> = runOverlayInput(overlayOf(o));
  if (o.configFile) {
    if (!existsSync(o.configFile)) throw new DataError('config file not found', o.configFile);
    let file: unknown;
    let text: string;
    try {
      text = readFileSync(o.configFile, 'utf8');
      file = JSON.parse(text);
    } catch (err) {
      throw new DataError(`not valid JSON: ${(err as Error).message}`, o.configFile);
    }
    if (!isObject(file)) throw new DataError('a config file holds one JSON object', o.configFile);
    // strict: a misspelt key would otherwise be dropped by zod and the profile's value used
    assertKnownConfigKeys(RunConfig, file, o.configFile, text);
    raw = mergeConfig(raw, file);
    // paper: a config that names its own models and no backbones trains all of its models
    if (o.profile === 'paper' && file.backbones === undefined && isObject(file.paper) && file.paper.models)
      raw.backbones = ((raw as { paper: { models: { name?: unknown }[] } }).paper.models ?? []).map(
        (m) => m.name,
      );
  }
  if (typeof o.seeds === 'number') {
    const base = runOverlayInput('mini').seeds as number[];
    const count = o.seeds;
    raw.seeds = Array.from({ length: count }, (_, i) => base[i] ?? 7919 * (i + 1));
  } else if (o.seeds !== undefined) raw.seeds = [...o.seeds];
  if (o.worldSeed !== undefined) {
    if (o.profile === 'paper')
      throw new DataError('--world-seed is for the mini world; the paper profile has no world to build');
    raw.world = { ...(raw.world as Record<string, unknown>), seed: o.worldSeed };
  }
  if (o.backbones === 'all')
    raw.backbones =
      o.profile === 'paper'
        ? ((raw.paper as { models?: { name: string }[] } | undefined)?.models ?? []).map((m) => m.name)
        : [...MINI_BACKBONES];
  const parsed = RunConfig.safeParse(raw);
  if (!parsed.success)
    throw new DataError(`invalid reproduce config: ${describeZodIssues(parsed.error.issues)}`, o.configFile);
  return parsed.data;
}

/**
 * The `pnpm reproduce` command line that makes `config` (the report's "Command:" line): the
 * profile's flags, `--world-seed S` and `--seeds A,B,C` where they differ from the profile's,
 * `--backbones all`, and `--config FILE` naming the paths a config file must change for the
 * rest. Resolving the flags it prints gives `config` back (resolveReproduceConfig).
 */
export function reproduceCommandOf(config: RunConfig): string {
  const profile = config.profile;
  const quick = config.variant === 'quick';
  const base = resolveReproduceConfig({ profile, quick });
  const o: ResolveConfigOptions = { profile, quick };
  const flags = [
    'pnpm reproduce',
    ...(profile === 'paper' ? ['--profile paper'] : []),
    ...(quick ? ['--quick'] : []),
  ];
  if (profile === 'mini' && config.world.seed !== base.world.seed) {
    o.worldSeed = config.world.seed;
    flags.push(`--world-seed ${config.world.seed}`);
  }
  if (JSON.stringify(config.seeds) !== JSON.stringify(base.seeds)) {
    o.seeds = config.seeds;
    flags.push(`--seeds ${config.seeds.join(',')}`);
  }
  if (profile === 'mini' && JSON.stringify(config.backbones) === JSON.stringify(MINI_BACKBONES)) {
    o.backbones = 'all';
    if (JSON.stringify(base.backbones) !== JSON.stringify(MINI_BACKBONES)) flags.push('--backbones all');
  }
  const rest = configDifferences(resolveReproduceConfig(o), config);
  if (rest.length > 0) flags.push(`--config FILE (setting ${rest.join(', ')})`);
  return flags.join(' ');
}
