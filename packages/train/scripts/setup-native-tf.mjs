#!/usr/bin/env node
// Set-up of the native TensorFlow backend for @tensorflow/tfjs-node. Run by this workspace's
// `postinstall`, and in any other project as `npx dv-setup-tensorflow` (the bin of @dv/train).
// tfjs-node's own installer downloads libtensorflow 2.9.1 from a host many machines cannot
// reach, so its install script is blocked (pnpm `allowBuilds: false`; under npm it fails and npm
// drops the optional package) and this script builds the binding against the TensorFlow 2.21 C
// library taken from the `tensorflow-cpu==2.21.0` pip wheel (recipe: docs/architecture.md,
// "Native TensorFlow").
//
// - In a project installed with npm where tfjs-node was dropped, it is added back first with
//   `npm install --no-save --ignore-scripts @tensorflow/tfjs-node@<the version @dv/train pins>`.
// - Idempotent: a stamp in the package's deps/ folder makes a repeated run a no-op.
// - Cached outside the repo: extracted libraries and the compiled binding live in
//   $DV_CACHE_DIR or ~/.cache/dv/tensorflow-2.21.0, so a fresh node_modules needs links only.
// - Never fails the install: anything missing (pip, the wheel, a compiler) prints one line and
//   @dv/train falls back to wasm/cpu at run time. `DV_TF_SETUP=skip` turns the step off.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planNativeTensorFlow, probeCudaDevice, TF_VERSION } from './native-tf-plan.mjs';

const trainDir = join(dirname(fileURLToPath(import.meta.url)), '..');
// CPU (tfjs-node + tensorflow-cpu, tested) or CUDA (tfjs-node-gpu + tensorflow, untested here).
const PLAN = planNativeTensorFlow({
  env: process.env,
  device: probeCudaDevice(process.env),
  platform: process.platform,
  arch: process.arch,
  installed: {
    // As @dv/train resolves them (in another project they are hoisted next to it).
    cpu: findPackage('@tensorflow/tfjs-node') !== undefined,
    gpu: findPackage('@tensorflow/tfjs-node-gpu') !== undefined,
  },
});
const WHEEL = PLAN.wheel;
const started = Date.now();
const log = (msg) => console.log(`dv native TensorFlow: ${msg}`);
const secs = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

class SetupSkipped extends Error {}

// the one dv cache place, as @dv/core's dvCacheDir (io/cache-dir.ts) computes it: this script
// runs at install time, before the workspace's TypeScript can be loaded
function cacheDir() {
  const base =
    process.env.DV_CACHE ||
    process.env.DV_CACHE_DIR ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'dv');
  return join(base, PLAN.cacheName);
}

/** The N-API version node-pre-gyp builds for: the highest the package lists that Node supports. */
function napiVersion(pkg) {
  const own = Number(process.versions.napi);
  const ok = pkg.binary.napi_versions.filter((v) => v <= own);
  if (ok.length === 0) throw new SetupSkipped(`Node's N-API ${own} is older than tfjs-node supports`);
  return Math.max(...ok);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw new SetupSkipped(`${cmd} not available (${r.error.code ?? r.error.message})`);
  if (r.status !== 0) {
    const lines = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n');
    const errors = lines.filter((l) => /^(ERROR|error)\b/.test(l.trim()));
    const tail = (errors.length ? errors.slice(-1) : lines.slice(-2)).join(' | ').slice(0, 300);
    throw new SetupSkipped(`${cmd} ${args.slice(0, 3).join(' ')} failed: ${tail}`);
  }
  return r.stdout;
}

/** Downloads the wheel with pip and extracts the C library and headers into `dir` (atomically). */
function extractTensorFlow(dir) {
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['-m', 'pip', '--version']).status === 0);
  if (!python) throw new SetupSkipped('no python3 with pip to fetch the tensorflow-cpu wheel');
  const work = mkdtempSync(join(tmpdir(), 'dv-tf-'));
  try {
    log(`fetching the ${WHEEL} wheel with pip (first run only; ~270 MB)...`);
    run(python, [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--disable-pip-version-check',
      '-q',
      '-d',
      work,
      WHEEL,
    ]);
    const wheel = readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new SetupSkipped(`pip found no ${WHEEL} wheel for this platform`);
    const staging = `${dir}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    // Python's zipfile is there whenever pip is; it keeps this script free of an unzip dependency.
    const extract = `
import sys, zipfile, os, shutil
whl, out = sys.argv[1], sys.argv[2]
inc = ('tensorflow/include/tensorflow/c/', 'tensorflow/include/xla/tsl/c/')
ctstr = ('tensorflow/include/tensorflow/core/platform/ctstring', 'tensorflow/include/tsl/platform/ctstring')
libs = ('tensorflow/libtensorflow_cc.so.2', 'tensorflow/libtensorflow_framework.so.2')
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.endswith('/'): continue
        if n in libs: dest = os.path.join(out, 'lib', os.path.basename(n))
        elif n.startswith(inc) or n.startswith(ctstr): dest = os.path.join(out, 'include', n[len('tensorflow/include/'):])
        else: continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with z.open(n) as src, open(dest, 'wb') as dst: shutil.copyfileobj(src, dst, 1 << 20)
`;
    run(python, ['-c', extract, join(work, wheel), staging]);
    for (const lib of ['libtensorflow_cc.so.2', 'libtensorflow_framework.so.2'])
      if (!existsSync(join(staging, 'lib', lib))) throw new SetupSkipped(`the wheel has no ${lib}`);
    // The binding links -ltensorflow / -ltensorflow_framework; the C and eager APIs are in _cc.
    const links = {
      'libtensorflow.so': 'libtensorflow_cc.so.2',
      'libtensorflow.so.2': 'libtensorflow_cc.so.2',
      'libtensorflow.so.2.9.1': 'libtensorflow_cc.so.2',
      'libtensorflow_framework.so': 'libtensorflow_framework.so.2',
      'libtensorflow_framework.so.2.9.1': 'libtensorflow_framework.so.2',
    };
    for (const [name, target] of Object.entries(links)) symlinkSync(target, join(staging, 'lib', name));
    writeFileSync(
      join(staging, 'SOURCE.txt'),
      `Extracted from ${wheel} by @dv/train's setup-native-tf.mjs\n`,
    );
    mkdirSync(dirname(dir), { recursive: true });
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another install finished first: keep its copy.
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(dir, 'lib', 'libtensorflow_cc.so.2'))) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function nodedir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  try {
    const d = execFileSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).trim();
    if (d && d !== 'undefined' && d !== 'null') return d;
  } catch {}
  // Node's headers next to the executable (a tarball install, Debian's nodejs-dev, nvm).
  const local = join(dirname(process.execPath), '..');
  if (existsSync(join(local, 'include', 'node', 'node_api.h'))) return local;
  throw new SetupSkipped("Node's headers not found (set npm's nodedir); node-gyp would try to download them");
}

/** Compiles tfjs_binding.node in the package folder with node-pre-gyp (no package.json edits). */
function buildBinding(pkgDir) {
  const gyp = join(pkgDir, 'node_modules', '.bin', 'node-pre-gyp');
  if (!existsSync(gyp)) throw new SetupSkipped('node-pre-gyp is missing from tfjs-node');
  log('compiling the tfjs-node binding against TensorFlow 2.21 (first run only)...');
  run(gyp, ['install', '--build-from-source'], {
    cwd: pkgDir,
    env: {
      ...process.env,
      PATH: `${join(pkgDir, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
      npm_config_nodedir: nodedir(),
    },
  });
}

/** Untested here: pip-downloads the CUDA 12 runtime wheels and gathers their lib/ files in `cache`/cuda-lib. */
function extractCudaRuntime(cache) {
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['-m', 'pip', '--version']).status === 0);
  if (!python) throw new SetupSkipped('no python3 with pip to fetch the CUDA runtime wheels');
  const work = mkdtempSync(join(tmpdir(), 'dv-cuda-'));
  try {
    log(`fetching the CUDA 12 runtime wheels with pip (first run only; several GB)...`);
    run(python, [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '-q',
      '-d',
      work,
      ...PLAN.cudaWheels,
    ]);
    const staging = `${join(cache, 'cuda-lib')}.tmp-${process.pid}`;
    const extract = `
import sys, zipfile, os, shutil, glob
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for whl in glob.glob(os.path.join(sys.argv[2], '*.whl')):
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            if n.startswith('nvidia/') and '/lib/' in n and not n.endswith('/'):
                with z.open(n) as src, open(os.path.join(out, os.path.basename(n)), 'wb') as dst: shutil.copyfileobj(src, dst, 1 << 20)
`;
    run(python, ['-c', extract, staging, work]);
    renameSync(staging, join(cache, 'cuda-lib'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Loads the package in a child process and returns TF's version, or throws why not. */
function probe(pkgDir) {
  const code = `const tf=require(${JSON.stringify(pkgDir)});process.stdout.write(tf.getBackend()+' '+tf.backend().binding.TF_Version)`;
  const cudaLib = join(cacheDir(), 'cuda-lib');
  const env =
    PLAN.variant === 'gpu'
      ? {
          ...process.env,
          ...PLAN.env,
          LD_LIBRARY_PATH: [cudaLib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter),
        }
      : process.env;
  const out = run(process.execPath, ['-e', code], { env }).trim().split('\n').pop();
  const [backend, version] = out.split(' ');
  if (backend !== 'tensorflow') throw new SetupSkipped(`tfjs-node loaded backend '${backend}'`);
  return version;
}

/** A package's folder as @dv/train resolves it, or undefined. */
function findPackage(name) {
  try {
    const req = createRequire(join(trainDir, 'package.json'));
    return realpathSync(dirname(req.resolve(`${name}/package.json`)));
  } catch {
    return undefined;
  }
}

/**
 * The project @dv/train is installed in (the folder above the outermost node_modules), when
 * that project is managed by npm; undefined inside this workspace or under pnpm / yarn.
 */
function npmProjectRoot() {
  const parts = trainDir.split(sep);
  const i = parts.indexOf('node_modules');
  if (i < 1) return undefined;
  const root = parts.slice(0, i).join(sep) || sep;
  if (!existsSync(join(root, 'package.json'))) return undefined;
  if (['pnpm-lock.yaml', 'yarn.lock'].some((f) => existsSync(join(root, f)))) return undefined;
  return root;
}

/** Adds tfjs-node(-gpu) (without its failing install script) to an npm project that lost it. */
function installPackage(name) {
  const root = npmProjectRoot();
  const own = JSON.parse(readFileSync(join(trainDir, 'package.json'), 'utf8'));
  const version = own.optionalDependencies?.[name];
  const spec = `${name}@${version && !version.startsWith('catalog:') ? version : '4.22.0'}`;
  if (!root)
    throw new SetupSkipped(
      `${name} is not installed; add ${spec} with install scripts off (pnpm: allowBuilds false; yarn: --ignore-scripts) and run again`,
    );
  log(`adding ${spec} to ${root} (npm install --no-save --ignore-scripts)...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  run(npm, ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', spec], { cwd: root });
}

function setup() {
  if (process.env.DV_TF_SETUP === 'skip') throw new SetupSkipped('DV_TF_SETUP=skip');
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new SetupSkipped(`automatic set-up covers linux-x64 only, not ${process.platform}-${process.arch}`);
  log(PLAN.message);
  let pkgDir = findPackage(PLAN.package);
  if (!pkgDir) {
    installPackage(PLAN.package);
    pkgDir = findPackage(PLAN.package);
    if (!pkgDir) throw new SetupSkipped(`${PLAN.package} (optional dependency) is not installed`);
  }
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const napi = napiVersion(pkg);
  const bindingRel = join('lib', `napi-v${napi}`, 'tfjs_binding.node');
  const cache = cacheDir();
  const key = `tfjs-node-${pkg.version}-napi${napi}-tf${TF_VERSION}-${process.platform}-${process.arch}`;
  const stampFile = join(pkgDir, 'deps', '.dv-setup');
  if (
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === key &&
    existsSync(join(pkgDir, bindingRel)) &&
    existsSync(join(pkgDir, 'deps', 'lib', 'libtensorflow_cc.so.2')) // false once the cache is deleted
  ) {
    log(`ready (TensorFlow ${TF_VERSION}, already set up; ${secs()})`);
    return cache;
  }
  if (!existsSync(join(cache, 'lib', 'libtensorflow_cc.so.2'))) extractTensorFlow(cache);
  if (PLAN.cudaWheels.length > 0 && !existsSync(join(cache, 'cuda-lib'))) extractCudaRuntime(cache);

  // Step 4 of the recipe: deps/include -> cache, each library linked into deps/lib.
  const deps = join(pkgDir, 'deps');
  rmSync(deps, { recursive: true, force: true });
  mkdirSync(join(deps, 'lib'), { recursive: true });
  symlinkSync(join(cache, 'include'), join(deps, 'include'));
  for (const f of readdirSync(join(cache, 'lib'))) symlinkSync(join(cache, 'lib', f), join(deps, 'lib', f));

  const cachedBinding = join(cache, 'bindings', key, 'tfjs_binding.node');
  if (existsSync(cachedBinding)) {
    mkdirSync(dirname(join(pkgDir, bindingRel)), { recursive: true });
    copyFileSync(cachedBinding, join(pkgDir, bindingRel));
  } else {
    buildBinding(pkgDir);
    if (!existsSync(join(pkgDir, bindingRel))) throw new SetupSkipped(`the build left no ${bindingRel}`);
    mkdirSync(dirname(cachedBinding), { recursive: true });
    const tmp = `${cachedBinding}.tmp-${process.pid}`;
    copyFileSync(join(pkgDir, bindingRel), tmp);
    renameSync(tmp, cachedBinding);
  }
  const version = probe(pkgDir);
  writeFileSync(stampFile, key);
  if (PLAN.variant === 'gpu')
    log(
      `GPU runs need: export LD_LIBRARY_PATH=${join(cache, 'cuda-lib')}:$LD_LIBRARY_PATH (CUDA 12 runtime)`,
    );
  log(`ready: backend 'tensorflow', TensorFlow ${version} (libraries in ${cache}; ${secs()})`);
  return cache;
}

/**
 * Compiles native/*.cc (fused GELU, LayerNorm, attention, softmax-gradient and AdamW kernels
 * registered as TensorFlow ops; see native/register.cc) against the cached TensorFlow framework
 * library into native/build/dv_tf_ops.node. The kernels (native/kernels/*.inc) are compiled for
 * AVX-512, AVX2 + FMA and baseline x86-64 in one binary (native/isa-*.cc) and the copy for the
 * CPU is chosen at load time, so the flags here are baseline and the addon runs on any x86-64.
 * Cached by sources and flags; a failure only costs speed.
 */
function buildFusedOps(cache) {
  const dir = join(trainDir, 'native');
  const sources = [
    ...readdirSync(dir).filter((f) => f.endsWith('.cc') || f.endsWith('.h')),
    ...readdirSync(join(dir, 'kernels'))
      .filter((f) => f.endsWith('.inc'))
      .map((f) => join('kernels', f)),
  ].sort();
  const out = join(dir, 'build', 'dv_tf_ops.node');
  const cxx = process.env.CXX || 'g++';
  const flags = [
    '-std=c++17',
    '-O3',
    '-fno-math-errno',
    '-fno-trapping-math',
    '-fPIC',
    '-shared',
    '-pthread',
    '-fvisibility=hidden',
  ];
  const hash = createHash('sha256');
  for (const f of sources) hash.update(f).update(readFileSync(join(dir, f)));
  const key = hash
    .update(`${cxx} ${flags.join(' ')} ${TF_VERSION}`)
    .digest('hex')
    .slice(0, 16);
  const keyFile = `${out}.key`;
  if (existsSync(out) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) return 'already built';
  const cached = join(cache, 'fused-ops', key, 'dv_tf_ops.node');
  if (!existsSync(cached)) {
    mkdirSync(dirname(cached), { recursive: true });
    const tmp = `${cached}.tmp-${process.pid}`;
    const lib = join(cache, 'lib');
    const units = sources.filter((f) => f.endsWith('.cc')).map((f) => join(dir, f));
    run(cxx, [
      ...flags,
      ...units,
      '-o',
      tmp,
      `-L${lib}`,
      '-l:libtensorflow_framework.so.2',
      `-Wl,-rpath,${lib}`,
    ]);
    renameSync(tmp, cached);
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  copyFileSync(cached, tmp);
  renameSync(tmp, out);
  writeFileSync(keyFile, key);
  return 'built';
}

let cache;
try {
  cache = setup();
} catch (err) {
  const why = err instanceof SetupSkipped ? err.message : (err?.message ?? String(err)).split('\n')[0];
  log(
    `not available (${why}); @dv/train will fall back to wasm/cpu (slower). Retry: ${existsSync(join(trainDir, '..', '..', 'pnpm-workspace.yaml')) ? 'node packages/train/scripts/setup-native-tf.mjs' : 'npx dv-setup-tensorflow'}`,
  );
}
if (cache && !PLAN.fusedKernels)
  log('fused kernels skipped: they are CPU kernels and this is the CUDA build');
else if (cache) {
  try {
    log(`fused kernels ${buildFusedOps(cache)} (${join(trainDir, 'native', 'build')}; ${secs()})`);
  } catch (err) {
    const why = err instanceof SetupSkipped ? err.message : (err?.message ?? String(err)).split('\n')[0];
    log(`fused kernels not built (${why}); training uses the slower composed ops`);
  }
}
process.exitCode = 0;
