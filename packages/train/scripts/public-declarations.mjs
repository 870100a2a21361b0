#!/usr/bin/env node
// Run after `tsc -p tsconfig.build.json` (build and prepack): keeps tfjs-core's declarations out of
// @dv/train's published ones. tfjs-core's .d.ts files need `Long` and the DOM lib, and clash with
// TypeScript 7's WebGPU types, so a consumer with `"types": ["node"]` or `"lib": ["es2022"]`
// could not typecheck any file that reaches them. Every reference to '@tensorflow/tfjs-core' in
// dist/**/*.d.ts is pointed at dist/backend/tensor-types.d.ts (our minimal interfaces, from
// src/backend/tensor-types.ts), and dist/backend/tf.d.ts, which re-exported tfjs-core's
// namespace, is written from those interfaces. Fails the build when a declaration still names
// a @tensorflow package afterwards or imports a name tensor-types.ts does not declare.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const typesFile = join(dist, 'backend', 'tensor-types.d.ts');
const declared = new Set(
  [...readFileSync(typesFile, 'utf8').matchAll(/export (?:type|interface) (\w+)/g)].map((m) => m[1]),
);

function* declarations(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* declarations(p);
    else if (e.name.endsWith('.d.ts')) yield p;
  }
}

const tfDeclaration = `/** tfjs-core's namespace as @dv/train's public declarations type it (see tensor-types.d.ts). */
import type * as types from './tensor-types.js';
export type { Tensor, Variable } from './tensor-types.js';
export declare namespace tf {
    type Rank = types.Rank;
    type Tensor<R extends Rank = Rank> = types.Tensor<R>;
    type Variable<R extends Rank = Rank> = types.Variable<R>;
    type Scalar = types.Scalar;
}
export declare const tf: types.TfjsCore;
`;

const problems = [];
let rewritten = 0;
for (const file of declarations(dist)) {
  if (file === typesFile) continue;
  const before = readFileSync(file, 'utf8');
  let text;
  if (file === join(dist, 'backend', 'tf.d.ts')) text = tfDeclaration;
  else {
    let rel = relative(dirname(file), typesFile).replace(/\.d\.ts$/, '.js');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    text = before
      .replaceAll("from '@tensorflow/tfjs-core'", `from '${rel}'`)
      .replaceAll('import("@tensorflow/tfjs-core")', `import("${rel}")`);
    for (const m of text.matchAll(/import type \{([^}]*)\} from '([^']*tensor-types\.js)'/g))
      for (const name of m[1]
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean))
        if (!declared.has(name))
          problems.push(`${relative(dist, file)}: imports ${name}, not in tensor-types`);
    for (const m of text.matchAll(/import\("[^"]*tensor-types\.js"\)\.(\w+)/g))
      if (!declared.has(m[1])) problems.push(`${relative(dist, file)}: names ${m[1]}, not in tensor-types`);
  }
  if (/@tensorflow\//.test(text)) problems.push(`${relative(dist, file)}: still names a @tensorflow package`);
  if (text !== before) {
    writeFileSync(file, text);
    rewritten++;
  }
}
if (problems.length > 0) {
  console.error(`public-declarations: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`public-declarations: ${rewritten} declaration file(s) point at tensor-types.d.ts`);
