// Types of cuda-device.js (plain JavaScript so that the install-time set-up can import it).
export interface CudaDeviceProbe {
  present: boolean;
  /** How it was decided, for messages (`DV_CUDA=1`, `/proc/driver/nvidia/version`, ...). */
  evidence: string;
}

export interface CudaProbeInputs {
  env: Record<string, string | undefined>;
  /** Does this path exist? */
  exists: (path: string) => boolean;
  /** stdout of `nvidia-smi -L`, or null when it cannot run. */
  nvidiaSmi: () => string | null;
}

/** Pure decision over the probe inputs (tested with fakes; `detectCudaDevice` feeds the real ones). */
export declare function decideCudaDevice(inputs: CudaProbeInputs): CudaDeviceProbe;

/** The real probe: this machine's files and `nvidia-smi -L` (5 s timeout). */
export declare function detectCudaDevice(env?: Record<string, string | undefined>): CudaDeviceProbe;
