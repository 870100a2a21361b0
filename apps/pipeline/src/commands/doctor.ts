/** `dv doctor`: what this machine offers the platform (Node, backends, caches). */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { dvPackageVersions } from '@dv/core';
import type { Command } from '../cli-kit.js';

/**
 * The command that (re)runs the native TensorFlow set-up where @dv/train is installed: the
 * workspace script in this repository's checkout (packages/train two levels under the file
 * pnpm-workspace.yaml, the test setup-native-tf.mjs makes too), else @dv/train's bin.
 */
export function setupTensorflowCommand(): string {
  const train = dirname(createRequire(import.meta.url).resolve('@dv/train/package.json'));
  return existsSync(join(train, '..', '..', 'pnpm-workspace.yaml'))
    ? 'node packages/train/scripts/setup-native-tf.mjs'
    : 'npx dv-setup-tensorflow';
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'report the runtime, package versions and which backends will be used',
  description: `Report the runtime, package versions and which backends will be used.
The training backend is chosen in the order tensorflow-gpu, tensorflow (native TensorFlow via
tfjs-node), wasm, cpu; set DV_TF_BACKEND to force one.`,
  options: {
    json: {
      type: 'boolean',
      description:
        'print the report as one JSON object (node, packages, trainingBackend, fusedKernels, advice)',
    },
  },
  async run(ctx) {
    const json = ctx.values.json === true;
    // the text report line by line; with --json the same facts as one object at the end
    const out = { write: (line: string) => (json ? true : ctx.stdout.write(line)) };
    const report: Record<string, unknown> = {
      node: { version: process.version, platform: process.platform, arch: process.arch },
      packages: dvPackageVersions(),
    };
    const advice: string[] = [];
    const done = (code: number) => {
      if (json) ctx.stdout.write(`${JSON.stringify({ ...report, advice, ok: code === 0 })}\n`);
      return code;
    };
    out.write(`node      ${process.version} (${process.platform}-${process.arch})\n`);
    for (const [name, version] of Object.entries(dvPackageVersions()))
      out.write(`${name.padEnd(10)}${version}\n`);
    // Loaded here, not at the top: loading tfjs costs every other command a second.
    const { fusedOpsStatus, initBackend } = await import('@dv/train');
    try {
      const b = await initBackend();
      report.trainingBackend = {
        backend: b.tfjsBackend,
        choice: b.choice,
        tensorflowVersion: b.tensorflowVersion ?? null,
        tfjsVersion: b.tfjsVersion,
        why: b.reason,
      };
      const tfVersion = b.tensorflowVersion ? `, TensorFlow ${b.tensorflowVersion}` : '';
      out.write(`training backend: ${b.tfjsBackend} (${b.choice}${tfVersion}, tfjs ${b.tfjsVersion})\n`);
      out.write(`  why: ${b.reason}\n`);
      if (b.tfjsBackend === 'tensorflow') {
        const fused = fusedOpsStatus();
        report.fusedKernels = { loaded: fused.loaded, why: fused.why };
        out.write(`fused kernels: ${fused.loaded ? 'loaded' : 'not loaded'} (${fused.why})\n`);
        if (!fused.loaded && process.env.DV_FUSED_OPS !== 'off' && b.choice === 'tensorflow') {
          advice.push(`to build the fused kernels: run \`${setupTensorflowCommand()}\``);
          out.write(`  to build them: run \`${setupTensorflowCommand()}\`\n`);
        }
      }
      if (b.tfjsBackend !== 'tensorflow' && !process.env.DV_TF_BACKEND) {
        advice.push(
          `native TensorFlow is much faster: run \`${setupTensorflowCommand()}\` to see why it is missing`,
        );
        out.write(
          `  native TensorFlow is much faster: run \`${setupTensorflowCommand()}\` to see why it is missing\n`,
        );
      }
    } catch (err) {
      report.trainingBackend = { backend: null, error: (err as Error).message };
      out.write(`training backend: none (${(err as Error).message})\n`);
      return done(1);
    }
    return done(0);
  },
};
