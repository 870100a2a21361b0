// After tsc: copies @dv/train's non-TypeScript runtime files from src/ into dist/ at the same
// paths (tsc emits only what it compiles). Today: the sentence-transformers training script that
// `dv train export --engine sentence-transformers` copies next to each export
// (src/engines/python/dv_st_train.py), which export-for-engine.ts finds next to its own file.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(pkg, 'src');
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'test-utils' || e.name === 'fixtures'
        ? []
        : walk(join(dir, e.name))
      : e.name.endsWith('.py')
        ? [join(dir, e.name)]
        : [],
  );
for (const file of walk(src)) {
  const target = join(pkg, 'dist', relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
