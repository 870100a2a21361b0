export declare const TF_VERSION: string;
export declare const CUDA_RUNTIME_WHEELS: readonly string[];
export interface CudaDeviceProbeJs {
  present: boolean;
  evidence: string;
}
export declare function decideCudaDeviceJs(inputs: {
  env: Record<string, string | undefined>;
  exists: (path: string) => boolean;
  nvidiaSmi: () => string | null;
}): CudaDeviceProbeJs;
export declare function probeCudaDevice(env?: Record<string, string | undefined>): CudaDeviceProbeJs;
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
  device: CudaDeviceProbeJs;
  platform: string;
  arch: string;
  installed: { cpu: boolean; gpu: boolean };
}): NativeTensorFlowPlan;
