#!/usr/bin/env node
// Builds the `dv` bin: apps/pipeline/src/cli.ts and the workspace packages it imports (@dv/*,
// from their TypeScript sources through the `@dv/source` condition) bundled by esbuild into one
// ES module, dist/bin/dv.js; third-party packages stay external (resolved from node_modules at run
// time, native addons included). A plain `node dist/bin/dv.js` then starts without tsx compiling
// TypeScript on every run. Run by the workspace's postinstall and by `pnpm -F @dv/pipeline
// build:bin`; `pnpm dv` keeps running the sources through tsx (always current while editing).
// Never fails the install: without esbuild it prints one line and `pnpm dv` still works.
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
let esbuild;
try {
  // esbuild comes with tsx (a dependency of this app).
  const tsx = createRequire(join(app, 'package.json')).resolve('tsx/package.json');
  esbuild = await import(createRequire(tsx).resolve('esbuild'));
} catch (err) {
  console.log(`dv bin: not built (esbuild not found: ${err?.code ?? err}); use \`pnpm dv\``);
  process.exit(0);
}
/**
 * Workspace packages and relative paths are bundled. Every other bare import stays external,
 * rewritten to the absolute file it resolves to from the importing package (pnpm keeps each
 * package's dependencies in its own node_modules, out of reach from dist/). `import.meta.url`
 * in a bundled source keeps meaning that source file, so code that finds files next to itself
 * (the fused-kernel addon, package.json versions, WordNet) and `createRequire(import.meta.url)`
 * behave as under tsx. The bin is built per checkout, like the native addons, and is not packed:
 * it names this checkout's files. The tarball's `dv` is the app's tsc output (`dist/cli.js`,
 * package.json `publishConfig.bin`), which resolves everything from where it is installed.
 */
/**
 * Third-party packages bundled all the same: zod, pure JS that every command needs at start-up
 * (the @dv/core schemas), costs ~60 ms of CPU to load as its ~80 separate ES modules and
 * far less as part of one chunk. (openai's optional zod helpers, the one other importer, are
 * not used, so one zod instance is all there is.)
 */
const BUNDLED = /^zod(\/|$)/;
const workspaceAware = {
  name: 'dv-workspace',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (
        args.path.startsWith('@dv/') ||
        args.path.startsWith('node:') ||
        BUNDLED.test(args.path) ||
        args.pluginData === 'dv-inner'
      )
        return undefined;
      const r = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'dv-inner',
      });
      if (r.errors.length > 0 || r.external || !r.path.startsWith('/'))
        return { path: args.path, external: true };
      return { path: r.path, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      };
    });
  },
};
const outdir = process.env.DV_BIN_OUTDIR || join(app, 'dist', 'bin');
try {
  // Chunk names carry content hashes: drop the previous build's, so dist/ holds one build.
  await rm(join(outdir, 'chunks'), { recursive: true, force: true });
  await esbuild.build({
    // Split at dynamic imports, so what a command loads lazily (@dv/train, and with it tfjs,
    // about a second) stays out of every other command's start-up.
    entryPoints: { dv: join(app, 'src', 'cli.ts') },
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@dv/source'],
    plugins: [workspaceAware],
    mainFields: ['main'],
    logLevel: 'warning',
  });
  console.log(`dv bin: built apps/pipeline/dist/bin/dv.js (${((Date.now() - started) / 1000).toFixed(1)} s)`);
} catch (err) {
  console.log(`dv bin: not built (${String(err?.message ?? err).split('\n')[0]}); use \`pnpm dv\``);
}
