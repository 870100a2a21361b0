/**
 * Which ONNX Runtime execution providers a session gets: CUDA when there is a CUDA device and
 * onnxruntime-node's CUDA provider library is installed, else the CPU, with one line saying
 * why. onnxruntime-node ships only the CPU provider in its npm package; its install script
 * fetches `libonnxruntime_providers_cuda.so` (CUDA 12) into `bin/napi-v6/linux/x64/` when
 * allowed to (`ONNXRUNTIME_NODE_INSTALL=cuda12`; blocked in this workspace, see ENVIRONMENT.md
 * trap 4). `DV_ORT_PROVIDER=cpu|cuda|auto` overrides; an explicit `cuda` that cannot work is
 * an error, never a silent CPU run.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { detectCudaDevice, type OnnxPrecision } from '@dv/core';

type CudaDeviceProbe = ReturnType<typeof detectCudaDevice>;

export type OrtProvider = 'cuda' | 'cpu';

export interface OrtProviderChoice {
  /** For `InferenceSession.create({ executionProviders })`, most preferred first. */
  providers: OrtProvider[];
  /** One human line: what was chosen and why (the fallback message). */
  message: string;
}

export interface OrtProviderInputs {
  /** `DV_ORT_PROVIDER` (or an explicit option); undefined or '' means auto. */
  requested?: string;
  device: CudaDeviceProbe;
  /** Path of the CUDA provider library, or null when onnxruntime-node has none installed. */
  cudaLibrary: string | null;
}

/** Pure: the choice for the given probes. */
export function selectOrtProviders(inputs: OrtProviderInputs): OrtProviderChoice {
  const req = inputs.requested && inputs.requested !== '' ? inputs.requested : 'auto';
  if (req !== 'auto' && req !== 'cpu' && req !== 'cuda')
    throw new Error(`DV_ORT_PROVIDER must be auto, cpu or cuda, not '${req}'`);
  if (req === 'cpu')
    return { providers: ['cpu'], message: 'onnxruntime: CPU execution provider (requested)' };
  const problem = !inputs.device.present
    ? `no CUDA device (${inputs.device.evidence})`
    : inputs.cudaLibrary === null
      ? "onnxruntime-node's CUDA provider is not installed (reinstall it with ONNXRUNTIME_NODE_INSTALL=cuda12 and its install script allowed)"
      : null;
  if (problem === null)
    return {
      providers: ['cuda', 'cpu'],
      message: `onnxruntime: CUDA execution provider (${inputs.device.evidence}; ${inputs.cudaLibrary})`,
    };
  if (req === 'cuda') throw new Error(`DV_ORT_PROVIDER=cuda, but ${problem}`);
  return { providers: ['cpu'], message: `onnxruntime: CPU execution provider; CUDA not used: ${problem}` };
}

/** onnxruntime-node's CUDA provider library for this platform, if installed. */
export function ortCudaLibrary(): string | null {
  try {
    const pkg = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
    const lib = join(
      pkg,
      'bin',
      'napi-v6',
      `${process.platform}`,
      process.arch,
      'libonnxruntime_providers_cuda.so',
    );
    return existsSync(lib) ? lib : null;
  } catch {
    return null;
  }
}

/** The choice for this machine (probes the device and the installed package). */
export function detectOrtProviders(env: Record<string, string | undefined> = process.env): OrtProviderChoice {
  return selectOrtProviders({
    requested: env.DV_ORT_PROVIDER,
    device: detectCudaDevice(env),
    cudaLibrary: ortCudaLibrary(),
  });
}

/**
 * A note for a precision that does not suit the providers, or undefined: the int8 graph's
 * dynamic-quantization operators are ONNX Runtime CPU kernels (integer dot products, VNNI), so
 * under CUDA the session places them on the CPU and copies activations back and forth.
 */
export function precisionProviderNote(
  precision: OnnxPrecision,
  providers: readonly OrtProvider[],
): string | undefined {
  if (precision !== 'int8' || providers[0] !== 'cuda') return undefined;
  return 'note: the int8 graph is built for CPUs; under CUDA its quantized operators may run on the CPU. On a GPU use --precision fp32';
}
