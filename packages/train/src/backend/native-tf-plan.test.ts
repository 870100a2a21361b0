import { detectCudaDevice } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { CUDA_RUNTIME_WHEELS, planNativeTensorFlow, probeCudaDevice } from '../../scripts/native-tf-plan.mjs';

const gpu = { present: true, evidence: 'nvidia-smi -L lists a GPU' };
const none = { present: false, evidence: 'no NVIDIA driver, no nvidia-smi' };
const linux = { platform: 'linux', arch: 'x64' };
const both = { cpu: true, gpu: true };

describe('planNativeTensorFlow (install-time choice of the native TensorFlow build)', () => {
  it('builds tfjs-node-gpu on the CUDA wheel with the CUDA 12 runtime on a linux-x64 GPU machine', () => {
    const p = planNativeTensorFlow({ env: {}, device: gpu, ...linux, installed: both });
    expect(p).toMatchObject({
      variant: 'gpu',
      package: '@tensorflow/tfjs-node-gpu',
      wheel: 'tensorflow==2.21.0',
      cacheName: 'tensorflow-2.21.0-cuda12',
      env: { TF_FORCE_GPU_ALLOW_GROWTH: 'true' },
      fusedKernels: false,
    });
    expect(p.cudaWheels).toEqual([...CUDA_RUNTIME_WHEELS]);
    expect(p.cudaWheels).toContain('nvidia-cudnn-cu12');
    expect(p.message).toMatch(/UNTESTED/);
  });

  it('falls back to the tested CPU build, saying why', () => {
    const cases: Array<[Parameters<typeof planNativeTensorFlow>[0], RegExp]> = [
      [
        { env: {}, device: none, ...linux, installed: both },
        /no CUDA device \(no NVIDIA driver, no nvidia-smi\)/,
      ],
      [
        { env: {}, device: gpu, ...linux, installed: { cpu: true, gpu: false } },
        /tfjs-node-gpu is not installed/,
      ],
      [
        { env: {}, device: gpu, platform: 'darwin', arch: 'arm64', installed: both },
        /linux-x64 only, not darwin-arm64/,
      ],
      [
        { env: { DV_TF_VARIANT: 'cpu' }, device: gpu, ...linux, installed: both },
        /requested by DV_TF_VARIANT=cpu/,
      ],
      [
        { env: { DV_TF_VARIANT: 'gpu' }, device: gpu, ...linux, installed: { cpu: true, gpu: false } },
        /DV_TF_VARIANT=gpu, but .*not installed/,
      ],
      [
        { env: { DV_TF_VARIANT: 'tpu' }, device: gpu, ...linux, installed: both },
        /must be auto, cpu or gpu, not 'tpu'/,
      ],
    ];
    for (const [inputs, why] of cases) {
      const p = planNativeTensorFlow(inputs);
      expect(p).toMatchObject({
        variant: 'cpu',
        package: '@tensorflow/tfjs-node',
        wheel: 'tensorflow-cpu==2.21.0',
        cudaWheels: [],
        fusedKernels: true,
      });
      expect(p.message).toMatch(/^CPU build \(tfjs-node on tensorflow-cpu 2\.21\.0\): /);
      expect(p.message).toMatch(why);
    }
  });

  it('DV_TF_VARIANT=gpu builds for CUDA even when the probe finds no device (e.g. a build host)', () => {
    const p = planNativeTensorFlow({
      env: { DV_TF_VARIANT: 'gpu' },
      device: none,
      ...linux,
      installed: both,
    });
    expect(p.variant).toBe('gpu');
  });

  it("the install-time set-up probes the device with @dv/core's probe (one implementation)", () => {
    expect(probeCudaDevice).toBe(detectCudaDevice);
  });
});
