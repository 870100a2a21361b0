// Finds a Python interpreter with the given modules for optional reference checks (never a
// runtime dependency): $DV_PYTHON, then <repo>/.venv-ref, <repo>/.venv, then python3 on PATH.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..');

/** Test timeout for checks that start Python (importing torch alone can take seconds on a busy machine). */
export const pythonTimeout = 180_000;

export const pythonSetupHint =
  'python3 -m venv .venv-ref && .venv-ref/bin/pip install torch transformers sentence-transformers onnx (from the local index), or set DV_PYTHON';

/** The first interpreter that imports all `modules`, or undefined (after a console note). */
export function findPython(modules: readonly string[]): string | undefined {
  const candidates = [
    process.env.DV_PYTHON,
    join(repoRoot, '.venv-ref', 'bin', 'python'),
    join(repoRoot, '.venv', 'bin', 'python'),
    'python3',
  ].filter((p): p is string => Boolean(p) && (p === 'python3' || existsSync(p!)));
  for (const python of candidates) {
    // find_spec does not import (torch takes seconds to import); a broken install fails later, loudly.
    const check = `import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in ${JSON.stringify(modules)}) else 1)`;
    const r = spawnSync(python, ['-c', check], { stdio: 'ignore', timeout: 60_000 });
    if (r.status === 0) return python;
  }
  console.warn(`skipping: no Python with ${modules.join(', ')} (${pythonSetupHint})`);
  return undefined;
}

/** Runs a Python script with JSON on stdin; returns its stdout parsed as JSON. */
export function runPython(python: string, script: string, input: unknown): unknown {
  const r = spawnSync(python, ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 170_000,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      HF_HUB_OFFLINE: '1',
      TRANSFORMERS_OFFLINE: '1',
      TOKENIZERS_PARALLELISM: 'false',
      OMP_NUM_THREADS: '1',
    },
  });
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr}`);
  const lastLine = r.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine);
}
