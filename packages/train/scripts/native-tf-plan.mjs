// Which native TensorFlow build the install-time set-up makes (setup-native-tf.mjs): the CUDA
// one (@tensorflow/tfjs-node-gpu against the CUDA `tensorflow==2.21.0` wheel, with the CUDA 12
// runtime wheels' libraries on the library path) on a linux-x64 machine with an NVIDIA GPU and
// tfjs-node-gpu installed, else the CPU one (@tensorflow/tfjs-node against
// `tensorflow-cpu==2.21.0`, the tested recipe). Pure: the caller passes what it probed.
// `DV_TF_VARIANT=auto|cpu|gpu` overrides; `gpu` where it cannot work falls back to the CPU
// build with a message saying why (the set-up never fails an install).
// The GPU build is UNTESTED here: no machine of this project has a GPU and the CUDA wheels.
//
// Plain JS (no TypeScript): it runs at install time, before anything is compiled. Types in
// native-tf-plan.d.mts; tests in src/backend/native-tf-plan.test.ts.

export const TF_VERSION = '2.21.0';

/** The CUDA 12 runtime wheels TensorFlow 2.21's `and-cuda` extra installs (their lib/ dirs go on LD_LIBRARY_PATH). */
export const CUDA_RUNTIME_WHEELS = Object.freeze([
  'nvidia-cublas-cu12',
  'nvidia-cuda-cupti-cu12',
  'nvidia-cuda-nvcc-cu12',
  'nvidia-cuda-nvrtc-cu12',
  'nvidia-cuda-runtime-cu12',
  'nvidia-cudnn-cu12',
  'nvidia-cufft-cu12',
  'nvidia-curand-cu12',
  'nvidia-cusolver-cu12',
  'nvidia-cusparse-cu12',
  'nvidia-nccl-cu12',
  'nvidia-nvjitlink-cu12',
]);

/**
 * The device probe is @dv/core's (packages/core/src/cuda-device.js, plain JS so that this
 * install-time script can import it before anything is built): re-exported under the set-up's name.
 */
export { detectCudaDevice as probeCudaDevice } from '../../core/src/cuda-device.js';

/**
 * @param {{ env: Record<string, string | undefined>, device: { present: boolean, evidence: string },
 *   platform: string, arch: string, installed: { cpu: boolean, gpu: boolean } }} inputs
 */
export function planNativeTensorFlow({ env, device, platform, arch, installed }) {
  const requested = env.DV_TF_VARIANT && env.DV_TF_VARIANT !== '' ? env.DV_TF_VARIANT : 'auto';
  const cpu = (why) => ({
    variant: 'cpu',
    package: '@tensorflow/tfjs-node',
    wheel: `tensorflow-cpu==${TF_VERSION}`,
    cudaWheels: [],
    cacheName: `tensorflow-${TF_VERSION}`,
    env: {},
    fusedKernels: true,
    message: `CPU build (tfjs-node on tensorflow-cpu ${TF_VERSION}): ${why}`,
  });
  if (!['auto', 'cpu', 'gpu'].includes(requested))
    return cpu(`DV_TF_VARIANT must be auto, cpu or gpu, not '${requested}'`);
  if (requested === 'cpu') return cpu('requested by DV_TF_VARIANT=cpu');
  const problem =
    platform !== 'linux' || arch !== 'x64'
      ? `the CUDA build covers linux-x64 only, not ${platform}-${arch}`
      : requested === 'auto' && !device.present
        ? `no CUDA device (${device.evidence})`
        : !installed.gpu
          ? '@tensorflow/tfjs-node-gpu is not installed (add it next to @tensorflow/tfjs-node to use a GPU)'
          : null;
  if (problem) return cpu(requested === 'gpu' ? `DV_TF_VARIANT=gpu, but ${problem}` : problem);
  return {
    variant: 'gpu',
    package: '@tensorflow/tfjs-node-gpu',
    wheel: `tensorflow==${TF_VERSION}`,
    cudaWheels: [...CUDA_RUNTIME_WHEELS],
    cacheName: `tensorflow-${TF_VERSION}-cuda12`,
    // TensorFlow grabs all GPU memory unless told to grow; the fused kernels are CPU-only.
    env: { TF_FORCE_GPU_ALLOW_GROWTH: 'true' },
    fusedKernels: false,
    message: `CUDA build (tfjs-node-gpu on tensorflow ${TF_VERSION} + CUDA 12 runtime wheels; ${requested === 'gpu' ? 'requested by DV_TF_VARIANT=gpu' : device.evidence}). UNTESTED on this project's machines`,
  };
}
