/**
 * The code digest of a package: a content hash of the code that makes a cached result, so that
 * every cache key (cache-key.ts) changes when that code does, with no version string to bump.
 *
 *   codeDigest(P, folders) = sha256(canonical JSON {
 *     name, version,
 *     files:     [{ path, sha256 }] of P's code files under `folders` (default: `src/` where it
 *                exists, as shipped in every tarball, else `dist/`), sorted by path; tests,
 *                fixtures, test-utils, testing/ (the loopback stand-ins) and benchmarks excluded,
 *     deps:      { name: version } of P's resolved third-party `dependencies`,
 *     workspace: { name: codeDigest(D) } of P's `@dv/*` dependencies, whole and recursively
 *   })
 *
 * Taken at run time from the files on disk (hashing a package's ~100 source files costs a few
 * milliseconds; results are memoized per process), so it holds under tsx, the esbuild bin (which
 * bundles the same `src/` files) and an installed tarball alike. A folder list narrows the
 * package's own part to what a stage really runs (the MLM stage names train's `src/mlm`, not
 * `src/loop`); its workspace dependencies always count whole.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../hash.js';

/** What a code digest was taken over (recorded beside a cache key, shown by `--explain`). */
export interface CodeDigest {
  /** The package name. */
  name: string;
  version: string;
  /** The folders (or files) hashed, relative to the package root. */
  folders: string[];
  /** sha256 over files, dependency versions and workspace digests (see the formula above). */
  digest: string;
  /** Number of files hashed in the package's own part. */
  files: number;
  /**
   * Package name -> the digest of its own part (files and third-party versions), for this
   * package and each workspace dependency counted: says *where* a changed digest changed.
   */
  parts: Record<string, string>;
}

/**
 * A package's code, optionally narrowed: `folders` (folders or files below its root) and
 * `entries` (files whose relative-import closure inside the package counts: what a stage's entry
 * module runs, found by scanning `import`/`export ... from` and `import()` specifiers). With
 * neither, the whole package. `dependencies: false` leaves its workspace dependencies out (for a
 * thin layer, such as a stage file of the app, whose library code is named by other refs).
 */
export interface CodeRef {
  package: string;
  /** The package's folder, where it is not resolvable by name (a plugin's, a test's own). */
  root?: string;
  /** A short name for the ref in keys and messages (default: the package and its narrowing). */
  label?: string;
  folders?: readonly string[];
  entries?: readonly string[];
  dependencies?: boolean;
}

const CODE_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|cc|h|inc)$/;
const SKIP_FILE = /\.(test|spec|bench)\.[cm]?[jt]s$/;
const SKIP_DIR = new Set([
  'node_modules',
  'fixtures',
  'test-utils',
  'testing',
  '__snapshots__',
  'bench',
  'build',
]);

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

function readPackageJson(root: string): PackageJson {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
}

/** The root folder (holding package.json) of `name` as resolved from `root`'s node_modules. */
function resolvePackageRoot(name: string, fromRoot: string): string | null {
  try {
    const p = createRequire(join(fromRoot, 'package.json')).resolve(`${name}/package.json`);
    return dirname(realpathSync(p));
  } catch {
    // packages whose exports do not list package.json: look in the node_modules folders above
  }
  for (let dir = fromRoot; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return null;
  }
}

/** The package root that contains `file` (the nearest folder above it with a package.json). */
export function packageRootOf(file: string): string {
  let dir = statSync(file, { throwIfNoEntry: false })?.isDirectory() ? file : dirname(file);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${file}`);
    dir = up;
  }
}

function listCodeFiles(root: string, rel: string, out: string[]): void {
  const abs = join(root, rel);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isFile()) {
    if (CODE_FILE.test(rel) && !SKIP_FILE.test(rel)) out.push(rel.split(sep).join('/'));
    return;
  }
  if (!st.isDirectory()) return;
  for (const entry of readdirSync(abs).sort()) {
    if (SKIP_DIR.has(entry) || entry.startsWith('.')) continue;
    listCodeFiles(root, join(rel, entry), out);
  }
}

function hashBytes(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Default folders of a package: `src/` where it ships sources, else `dist/`; plus `native/`. */
function defaultFolders(root: string): string[] {
  const own = existsSync(join(root, 'src')) ? ['src'] : ['dist'];
  return existsSync(join(root, 'native')) ? [...own, 'native'] : own;
}

const IMPORT_SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The relative-import closure of `entry` inside `root` (package-relative paths). */
function importClosure(root: string, entry: string, out: Set<string>): void {
  const abs = resolve(root, entry);
  const rel = relative(root, abs).split(sep).join('/');
  if (out.has(rel)) return;
  out.add(rel);
  const text = readFileSync(abs, 'utf8');
  for (const m of text.matchAll(IMPORT_SPEC)) {
    const target = resolve(dirname(abs), m[1]!);
    const candidates = [
      target,
      target.replace(/\.js$/, '.ts'),
      target.replace(/\.mjs$/, '.mts'),
      `${target}.ts`,
    ];
    const hit = candidates.find((c) => statSync(c, { throwIfNoEntry: false })?.isFile());
    if (hit?.startsWith(root + sep)) importClosure(root, relative(root, hit), out);
  }
}

function checkInside(root: string, f: string, what: string): void {
  const abs = resolve(root, f);
  if (abs !== root && !abs.startsWith(root + sep)) throw new Error(`code ${what} '${f}' leaves ${root}`);
  if (!existsSync(abs)) throw new Error(`code ${what} '${f}' does not exist in ${root}`);
}

/** The package-relative code files a ref covers. */
function refFiles(root: string, ref: Omit<CodeRef, 'package'>): { files: string[]; scope: string[] } {
  const narrowed = Boolean(ref.folders?.length || ref.entries?.length);
  const folders = narrowed ? [...(ref.folders ?? [])] : defaultFolders(root);
  for (const f of ref.folders ?? []) checkInside(root, f, 'folder');
  for (const e of ref.entries ?? []) checkInside(root, e, 'entry');
  const paths: string[] = [];
  for (const f of folders) listCodeFiles(root, f, paths);
  const closure = new Set<string>();
  for (const e of ref.entries ?? []) importClosure(root, e, closure);
  for (const p of closure) if (CODE_FILE.test(p) && !SKIP_FILE.test(p)) paths.push(p);
  return {
    files: [...new Set(paths)].sort(),
    scope: [...folders, ...(ref.entries ?? []).map((e) => `${e} (imports)`)],
  };
}

const memo = new Map<string, CodeDigest>();

function digestRoot(root: string, ref: Omit<CodeRef, 'package'>, visiting: Set<string>): CodeDigest {
  const withDeps = ref.dependencies !== false;
  const memoKey = JSON.stringify([root, ref.folders ?? [], ref.entries ?? [], withDeps]);
  const hit = memo.get(memoKey);
  if (hit) return hit;
  const pj = readPackageJson(root);
  const { files: paths, scope } = refFiles(root, ref);
  const files = paths.map((p) => ({ path: p, sha256: hashBytes(join(root, p)) }));
  const deps: Record<string, string> = {};
  const workspace: Record<string, string> = {};
  const parts: Record<string, string> = {};
  const next = new Set(visiting).add(root);
  for (const [name, spec] of Object.entries(pj.dependencies ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const depRoot = resolvePackageRoot(name, root);
    if (!depRoot) {
      deps[name] = `unresolved:${spec}`;
      continue;
    }
    if (name.startsWith('@dv/') || spec.startsWith('workspace:')) {
      if (!withDeps || next.has(depRoot)) continue; // left out, or a cycle: counts once
      const d = digestRoot(depRoot, {}, next);
      workspace[name] = d.digest;
      Object.assign(parts, d.parts);
    } else deps[name] = readPackageJson(depRoot).version;
  }
  parts[pj.name] = contentHash({ files, deps });
  const result: CodeDigest = {
    name: pj.name,
    version: pj.version,
    folders: scope,
    digest: contentHash({ name: pj.name, version: pj.version, files, deps, workspace, withDeps }),
    files: files.length,
    parts,
  };
  memo.set(memoKey, result);
  return result;
}

/** The folder of a ref's package: its `root`, itself, or resolved by name from `fromUrl`'s package. */
function refRoot(ref: CodeRef, fromUrl: string): string {
  if (ref.root) {
    const name = readPackageJson(ref.root).name;
    if (name !== ref.package) throw new Error(`${ref.root} holds ${name}, not ${ref.package}`);
    return realpathSync(ref.root);
  }
  const from = packageRootOf(fileURLToPath(fromUrl));
  const root = readPackageJson(from).name === ref.package ? from : resolvePackageRoot(ref.package, from);
  if (!root) throw new Error(`cannot resolve ${ref.package} from ${from}`);
  return root;
}

/**
 * The code digest of package `ref.package` as resolved from the module at `fromUrl` (pass
 * `import.meta.url`; a package resolves itself by name through its own `exports`).
 */
export function codeDigest(ref: CodeRef, fromUrl: string): CodeDigest {
  return digestRoot(refRoot(ref, fromUrl), ref, new Set());
}

/** A ref's label in a key's `code` part: the package, and its narrowing when there is one. */
export function codeRefLabel(ref: CodeRef): string {
  if (ref.label) return ref.label;
  const narrow = [...(ref.folders ?? []), ...(ref.entries ?? [])];
  return narrow.length ? `${ref.package}:${narrow.join(',')}` : ref.package;
}

/** Code digests of several packages, by name (what a cache key's `code` part holds). */
export function codeDigests(refs: readonly CodeRef[], fromUrl: string): Record<string, CodeDigest> {
  const out: Record<string, CodeDigest> = {};
  for (const ref of refs) {
    const d = codeDigest(ref, fromUrl);
    out[codeRefLabel(ref)] = d;
  }
  return out;
}

/** Forgets memoized digests (tests that edit code files in place; a long-lived process). */
export function clearCodeDigestMemo(): void {
  memo.clear();
}

/** Paths of the files a digest covers (for `--explain` and tests). */
export function codeFiles(ref: CodeRef, fromUrl: string): string[] {
  const root = refRoot(ref, fromUrl);
  return refFiles(root, ref).files.map((p) => relative(process.cwd(), join(root, p)));
}
