/**
 * `dv synth`: polarity-reversal synthesis (@dv/synth). Thin over the library: flags become a
 * partial synthesis config over the preset, one `SynthesisRunConfig` parse validates it,
 * `createSynthesisRun` picks the backend and judge (its registries) and runs; the outcome module
 * prints the result and maps it to an exit code (synth/synthesis-outcome.ts).
 */
import { type PresetName, presets, SynthesisRunConfig } from '@dv/core';
import {
  createSynthesisRun,
  SynthesisConfigError,
  type SynthesisRun,
  synthesisBackendNames,
  synthesisBackends,
  synthesisConfigFromPreset,
  synthesisJudgeNames,
  synthesisJudges,
} from '@dv/synth';
import {
  defineCommand,
  describeIssues,
  enumOption,
  requireString,
  shardOption,
  UsageError,
  urlListOption,
} from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';
import { flagOf, OTHER_FLAGS, synthFlags } from '../run-configs/synth-flags.js';
import { printSynthesisResult } from '../synth/synthesis-outcome.js';

const presetNames = Object.keys(presets) as PresetName[];

export const synthRunCommand = defineCommand({
  name: 'synth',
  summary: 'synthesize complementary instructions (polarity reversal)',
  usage: `--seeds FILE --out DIR [--backend ${synthesisBackendNames.join('|')}] [--json] [options]`,
  description: `Writes, for each seed (q, I, D+, D-), a complementary instruction I' under which D- is
relevant and D+ is not, checks it (guardrails, then verification), and assembles both views.
Outputs in --out: log.jsonl (append-only journal; reruns resume from it), records.jsonl,
failures.jsonl, original.jsonl, complement.jsonl, summary.json, manifest.json.
Backends: ${Object.entries(synthesisBackends)
    .map(([n, b]) => `${n} (${b.description})`)
    .join(', ')}.
Exit codes: 0 done; 1 every seed failed, bad data, the endpoint refused the key or cannot be
reached (3 connection failures in a row stop the run); 2 bad usage; 3 partial: some seeds failed
(rerun with --retry-failed) or the cost cap stopped the run (rerun with a higher --cost-cap).`,
  flags: synthFlags,
  options: {
    seeds: { type: 'string', description: 'seed examples (SeedExample JSONL)', valueName: 'FILE' },
    out: { type: 'string', description: 'output folder (resumes what is already there)', valueName: 'DIR' },
    preset: {
      type: 'string',
      description: 'synthesis defaults from a preset: mini | paper',
      valueName: 'NAME',
      default: 'mini',
    },
    'base-url': {
      type: 'string',
      multiple: true,
      description: 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (repeat for round-robin)',
      valueName: 'URL',
    },
    judge: {
      type: 'string',
      description: `verification: ${Object.entries(synthesisJudges)
        .map(([n, j]) => `${n} (${j.description}, threshold ${j.defaultThreshold})`)
        .join(' | ')} | none`,
      valueName: 'NAME',
    },
    shard: { type: 'string', description: 'process shard i of n (0-based), e.g. 0/4', valueName: 'i/n' },
    json: {
      type: 'boolean',
      description: 'print the run summary (summary.json) as one JSON object; notes stay on stderr',
    },
  },
  async run(ctx) {
    const presetName = enumOption(ctx, 'preset', presetNames) ?? 'mini';
    const judge = enumOption(ctx, 'judge', [...synthesisJudgeNames, 'none'] as const);
    const baseURLs = urlListOption(ctx, 'base-url');
    const { pricing, ...given } = ctx.settings.synthesis ?? {};
    // flags -> a partial config over the preset; one parse validates the whole run config
    const synthesis = synthesisConfigFromPreset(presetName, {
      ...given,
      backend: given.backend ?? 'offline', // the offline reverser unless --backend, whatever the preset
      ...(baseURLs.length ? { baseURLs } : {}),
      ...(pricing ? { pricing: { inputPerMTokens: 0, outputPerMTokens: 0, ...pricing } } : {}),
      ...(judge === 'none' ? { verify: false } : judge ? { verify: true, judge } : {}),
    });
    const parsed = SynthesisRunConfig.safeParse({
      ...ctx.settings,
      seedsPath: requireString(ctx, 'seeds'),
      outDir: requireString(ctx, 'out'),
      synthesis,
      formatter: presets[presetName].config.train.formatter,
      shard: shardOption(ctx),
    });
    if (!parsed.success)
      throw new UsageError(describeIssues(synthFlags, parsed.error.issues, { also: OTHER_FLAGS }));
    const config = parsed.data;
    // the one output-folder guard, then one writer per folder (issue 25); released below
    const lock = lockOutputFolder(config.outDir, `dv synth --out ${config.outDir}`);
    try {
      const verbose = Boolean(process.env.DV_SYNTH_VERBOSE);
      let run: SynthesisRun;
      try {
        run = await createSynthesisRun(config, {
          onEvent: (e) => {
            if (e.type === 'start')
              ctx.stderr.write(
                `synth: backend ${e.backend}, model ${e.model}, template ${e.template.id}@${e.template.version}, judge ${e.judge ?? 'none'}${e.shard ? `, shard ${e.shard.index}/${e.shard.count}` : ''}\n`,
              );
            else if (verbose)
              ctx.stderr.write(
                `retry ${e.attempt} (${e.reason}) in ${Math.round(e.delayMs)} ms via ${e.endpoint}\n`,
              );
          },
          command: ctx.commandLine,
        });
      } catch (err) {
        if (err instanceof SynthesisConfigError) throw new UsageError(err.describe(flagOf));
        throw err;
      }
      const result = await run.run();
      return printSynthesisResult(result, config, {
        json: ctx.values.json === true,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
      });
    } finally {
      lock.release();
    }
  },
});
