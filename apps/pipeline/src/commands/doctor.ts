/** `dv doctor`: what this machine offers the platform (Node, backends, caches). */
import { dvPackageVersions } from '@dv/core';
import type { Command } from '../cli-kit.js';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'report the runtime, package versions and which backends will be used',
  run(ctx) {
    const out = ctx.stdout;
    out.write(`node      ${process.version} (${process.platform}-${process.arch})\n`);
    for (const [name, version] of Object.entries(dvPackageVersions()))
      out.write(`${name.padEnd(10)}${version}\n`);
    out.write('training backend: not built yet (the @dv/train engine reports it here once it exists)\n');
    return 0;
  },
};
