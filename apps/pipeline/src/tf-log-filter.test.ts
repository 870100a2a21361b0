/** The stderr filter for TensorFlow's load-time log lines (issue 12 item 12); the spawned check is in doctor.test.ts. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  absoluteImportFlags,
  createNoiseFilter,
  isTensorFlowNoise,
  loadsTensorFlow,
} from './tf-log-filter.js';

// The four lines libtensorflow 2.21 printed on every `dv doctor` / `dv train` (copied from a run).
const NOISE = [
  'WARNING: All log messages before absl::InitializeLog() is called are written to STDERR',
  'I0000 00:00:1796112800.991049    6026 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.',
  'I0000 00:00:1796112801.084504    6026 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.',
  'To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 AVX512_FP16 AVX_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.',
];

describe('TensorFlow log filter', () => {
  it('recognises the load-time INFO lines and keeps warnings, errors and our own output', () => {
    for (const l of NOISE) expect(isTensorFlowNoise(l), l).toBe(true);
    for (const keep of [
      'W0000 00:00:1796112801.084504    6026 gpu_device.cc:2342] Cannot dlopen some GPU libraries.',
      'E0000 00:00:1796112801.084504    6026 cuda_dnn.cc:8310] Could not load cudnn',
      'error: runs/x: permission denied',
      'Info: training 3/10 steps',
    ])
      expect(isTensorFlowNoise(keep), keep).toBe(false);
  });
  it('drops noise split over chunks, passes progress redraws at once', () => {
    let out = '';
    const f = createNoiseFilter((t) => {
      out += t;
    });
    const text = `${NOISE.join('\n')}\nreal line\n`;
    for (let i = 0; i < text.length; i += 7) f.push(text.slice(i, i + 7));
    f.push('\rtrain 1/10 ETA 5s');
    expect(out).toBe('real line\n\rtrain 1/10 ETA 5s');
    f.push('\rtrain 2/10 ETA 4s\n');
    f.end();
    expect(out.endsWith('\rtrain 2/10 ETA 4s\n')).toBe(true);
  });
  it('wraps only the commands that load TensorFlow', () => {
    expect(loadsTensorFlow(['doctor'])).toBe(true);
    expect(loadsTensorFlow(['train', 'vocab'])).toBe(true);
    expect(loadsTensorFlow(['eval', 'run', '--model', 'tfjs:runs/m'])).toBe(true);
    expect(loadsTensorFlow(['eval', 'run', '--model', 'bm25'])).toBe(false);
    expect(loadsTensorFlow(['synth', '--seeds', 'x'])).toBe(false);
  });
});

describe('absoluteImportFlags', () => {
  it('resolves bare --import specifiers (the child starts in the user folder), keeps the rest', () => {
    const resolve = (s: string) => {
      if (s === 'tsx') return 'file:///repo/node_modules/tsx/dist/esm/index.mjs';
      throw new Error(`cannot resolve ${s}`);
    };
    expect(
      absoluteImportFlags(
        [
          '--conditions=@dv/source',
          '--import',
          'tsx',
          '--import=tsx',
          '--import',
          './local.mjs',
          '--import',
          'nope',
        ],
        resolve,
      ),
    ).toEqual([
      '--conditions=@dv/source',
      '--import',
      'file:///repo/node_modules/tsx/dist/esm/index.mjs',
      '--import=file:///repo/node_modules/tsx/dist/esm/index.mjs',
      '--import',
      './local.mjs',
      '--import',
      'nope',
    ]);
  });
  it('the real tsx resolves from this file to a file URL that exists', () => {
    const [, url] = absoluteImportFlags(['--import', 'tsx'], (s) => import.meta.resolve(s));
    expect(url).toMatch(/^file:\/\/.*tsx/);
    expect(existsSync(fileURLToPath(url!))).toBe(true);
  });
});
