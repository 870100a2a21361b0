import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { setupTensorflowCommand } from './doctor.js';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

async function doctor(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), 'doctor', ...args],
      { cwd: join(here, '..', '..'), env: { ...process.env, npm_lifecycle_event: '', ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('dv doctor', () => {
  it('reports the training backend, its TensorFlow version and why it was chosen', async () => {
    const r = await doctor({ DV_TF_BACKEND: '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^training backend: (tensorflow|wasm|cpu) \(/m);
    expect(r.stdout).toMatch(/^ {2}why: /m);
    // issue 12 item 12: TensorFlow's C++ load-time INFO lines no longer reach stderr
    expect(r.stderr).not.toMatch(/absl::InitializeLog|port\.cc:|cpu_feature_guard|To enable the following/);
    // CI machines build native TensorFlow at install time (packages/train/scripts/setup-native-tf.mjs).
    if (process.env.CI === 'true' || r.stdout.includes('training backend: tensorflow'))
      expect(r.stdout).toContain('training backend: tensorflow (tensorflow, TensorFlow 2.21.0, tfjs 4.22.0)');
  });

  it('honours DV_TF_BACKEND', async () => {
    const r = await doctor({ DV_TF_BACKEND: 'cpu' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('training backend: cpu (cpu, tfjs 4.22.0)');
    expect(r.stdout).toContain('why: requested by DV_TF_BACKEND');
  });

  it('advises the set-up command of where @dv/train is installed: here the workspace script', () => {
    // A consumer of the packed packages gets `npx dv-setup-tensorflow` (packages-install.test.ts).
    expect(setupTensorflowCommand()).toBe('node packages/train/scripts/setup-native-tf.mjs');
  });

  it('--json prints the same report as one object; an unknown backend is ok: false, exit 1', async () => {
    const r = await doctor({ DV_TF_BACKEND: 'cpu' }, ['--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      node: { version: process.version, platform: process.platform },
      trainingBackend: {
        backend: 'cpu',
        choice: 'cpu',
        tfjsVersion: '4.22.0',
        why: 'requested by DV_TF_BACKEND',
      },
      ok: true,
    });
    expect(Object.keys(j.packages)).toContain('@dv/core');
    const bad = await doctor({ DV_TF_BACKEND: 'tpu' }, ['--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, trainingBackend: { backend: null } });
    expect(JSON.parse(bad.stdout).trainingBackend.error).toContain("unknown tfjs backend 'tpu'");
  });

  it('an unknown DV_TF_BACKEND is reported, exit 1', async () => {
    const r = await doctor({ DV_TF_BACKEND: 'tpu' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("unknown tfjs backend 'tpu'");
  });
});
