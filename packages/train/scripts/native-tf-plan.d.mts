export declare const TF_VERSION: string;
export declare const CUDA_RUNTIME_WHEELS: readonly string[];

import type { CudaDeviceProbe } from '../../core/src/cuda-device.js';

export { detectCudaDevice as probeCudaDevice } from '../../core/src/cuda-device.js';
export interface NativeTensorFlowPlan {
  variant: 'cpu' | 'gpu';
  package: '@tensorflow/tfjs-node' | '@tensorflow/tfjs-node-gpu';
  wheel: string;
  cudaWheels: string[];
  cacheName: string;
  env: Record<string, string>;
  fusedKernels: boolean;
  message: string;
}
export declare function planNativeTensorFlow(inputs: {
  env: Record<string, string | undefined>;
  device: CudaDeviceProbe;
  platform: string;
  arch: string;
  installed: { cpu: boolean; gpu: boolean };
}): NativeTensorFlowPlan;
