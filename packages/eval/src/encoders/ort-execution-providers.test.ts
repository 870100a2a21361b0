import { describe, expect, it } from 'vitest';
import {
  detectOrtProviders,
  ortCudaLibrary,
  precisionProviderNote,
  selectOrtProviders,
} from './ort-execution-providers.js';

const gpu = { present: true, evidence: '/proc/driver/nvidia/version (NVIDIA kernel driver loaded)' };
const none = { present: false, evidence: 'no NVIDIA driver, no nvidia-smi' };
const lib = '/x/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so';

describe('selectOrtProviders', () => {
  it('uses CUDA (then CPU) only with a device and the provider library', () => {
    expect(selectOrtProviders({ device: gpu, cudaLibrary: lib }).providers).toEqual(['cuda', 'cpu']);
    const noLib = selectOrtProviders({ device: gpu, cudaLibrary: null });
    expect(noLib.providers).toEqual(['cpu']);
    expect(noLib.message).toMatch(
      /CPU execution provider; CUDA not used: .*CUDA provider is not installed.*ONNXRUNTIME_NODE_INSTALL=cuda12/,
    );
    const noGpu = selectOrtProviders({ device: none, cudaLibrary: lib });
    expect(noGpu.providers).toEqual(['cpu']);
    expect(noGpu.message).toContain('no CUDA device (no NVIDIA driver, no nvidia-smi)');
  });

  it('honours DV_ORT_PROVIDER: cpu always works, cuda fails loudly when impossible', () => {
    expect(selectOrtProviders({ requested: 'cpu', device: gpu, cudaLibrary: lib }).providers).toEqual([
      'cpu',
    ]);
    expect(selectOrtProviders({ requested: 'cuda', device: gpu, cudaLibrary: lib }).providers).toEqual([
      'cuda',
      'cpu',
    ]);
    expect(() => selectOrtProviders({ requested: 'cuda', device: none, cudaLibrary: lib })).toThrow(
      /DV_ORT_PROVIDER=cuda, but no CUDA device/,
    );
    expect(() => selectOrtProviders({ requested: 'rocm', device: gpu, cudaLibrary: lib })).toThrow(
      /auto, cpu or cuda/,
    );
  });

  it('on this machine (npm package without the CUDA provider) falls back to the CPU', () => {
    // The workspace blocks onnxruntime-node's install script, so the CUDA library is absent.
    expect(ortCudaLibrary()).toBeNull();
    const c = detectOrtProviders({ DV_CUDA: '1' });
    expect(c.providers).toEqual(['cpu']);
    expect(c.message).toMatch(/CUDA not used/);
  });
});

describe('precisionProviderNote', () => {
  it('warns about the int8 graph under CUDA only', () => {
    expect(precisionProviderNote('int8', ['cuda', 'cpu'])).toMatch(/built for CPUs.*--precision fp32/);
    expect(precisionProviderNote('int8', ['cpu'])).toBeUndefined();
    expect(precisionProviderNote('fp32', ['cuda', 'cpu'])).toBeUndefined();
  });
});
