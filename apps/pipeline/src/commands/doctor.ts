/** `dv doctor`: what this machine offers the platform (Node, backends, caches). */
import { dvPackageVersions } from '@dv/core';
import type { Command } from '../cli-kit.js';

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
      }
      if (b.tfjsBackend !== 'tensorflow' && !process.env.DV_TF_BACKEND)
        out.write(
          '  native TensorFlow is much faster: run `node packages/train/scripts/setup-native-tf.mjs` to see why it is missing\n',
        );
    } catch (err) {
      out.write(`training backend: none (${(err as Error).message})\n`);
      return 1;
    }
    return 0;
  },
};
