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
  async run(ctx) {
    const out = ctx.stdout;
    out.write(`node      ${process.version} (${process.platform}-${process.arch})\n`);
    for (const [name, version] of Object.entries(dvPackageVersions()))
      out.write(`${name.padEnd(10)}${version}\n`);
    // Loaded here, not at the top: loading tfjs costs every other command a second.
    const { fusedOpsStatus, initBackend } = await import('@dv/train');
    try {
      const b = await initBackend();
      const tfVersion = b.tensorflowVersion ? `, TensorFlow ${b.tensorflowVersion}` : '';
      out.write(`training backend: ${b.tfjsBackend} (${b.choice}${tfVersion}, tfjs ${b.tfjsVersion})\n`);
      out.write(`  why: ${b.reason}\n`);
      if (b.tfjsBackend === 'tensorflow') {
        const fused = fusedOpsStatus();
        out.write(`fused kernels: ${fused.loaded ? 'loaded' : 'not loaded'} (${fused.why})\n`);
        if (!fused.loaded && process.env.DV_FUSED_OPS !== 'off' && b.choice === 'tensorflow')
          out.write(`  to build them: run \`${setupTensorflowCommand()}\`\n`);
      }
      if (b.tfjsBackend !== 'tensorflow' && !process.env.DV_TF_BACKEND)
        out.write(
          `  native TensorFlow is much faster: run \`${setupTensorflowCommand()}\` to see why it is missing\n`,
        );
    } catch (err) {
      out.write(`training backend: none (${(err as Error).message})\n`);
      return 1;
    }
    return 0;
  },
};
