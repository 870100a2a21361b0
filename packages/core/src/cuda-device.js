/**
 * Is there an NVIDIA CUDA device on this machine? The one probe shared by the tfjs-node-gpu
 * selection (@dv/train, also its install-time set-up `packages/train/scripts/setup-native-tf.mjs`)
 * and ONNX Runtime's CUDA execution provider (@dv/eval); in @dv/core so that importing @dv/eval
 * does not load tfjs. Plain JavaScript (types in cuda-device.d.ts; `pnpm build` copies both into
 * dist/) because the set-up runs at install time, before anything is compiled and without tsx.
 *
 * Evidence, first match wins: `DV_CUDA=0|1` forces the answer; `CUDA_VISIBLE_DEVICES` set to
 * `-1`, empty or `none` hides every device (CUDA's own convention); the kernel driver's
 * `/proc/driver/nvidia/version`; `nvidia-smi -L` listing at least one `GPU `. The probe never
 * throws: a missing `nvidia-smi` is just "no evidence".
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Pure decision over the probe inputs (tested with fakes; `detectCudaDevice` feeds the real ones).
 */
export function decideCudaDevice(inputs) {
  const forced = inputs.env.DV_CUDA;
  if (forced === '0' || forced === '1') return { present: forced === '1', evidence: `DV_CUDA=${forced}` };
  const visible = inputs.env.CUDA_VISIBLE_DEVICES;
  if (visible !== undefined && ['', '-1', 'none', 'NoDevFiles'].includes(visible.trim()))
    return { present: false, evidence: `CUDA_VISIBLE_DEVICES=${JSON.stringify(visible)} hides every device` };
  if (inputs.exists('/proc/driver/nvidia/version'))
    return { present: true, evidence: '/proc/driver/nvidia/version (NVIDIA kernel driver loaded)' };
  const smi = inputs.nvidiaSmi();
  if (smi !== null && /^GPU \d+:/m.test(smi)) return { present: true, evidence: 'nvidia-smi -L lists a GPU' };
  return {
    present: false,
    evidence: smi === null ? 'no NVIDIA driver, no nvidia-smi' : 'nvidia-smi lists no GPU',
  };
}

/**
 * The real probe: this machine's files and `nvidia-smi -L` (5 s timeout).
 */
export function detectCudaDevice(env = process.env) {
  return decideCudaDevice({
    env,
    exists: existsSync,
    nvidiaSmi: () => {
      try {
        return execFileSync('nvidia-smi', ['-L'], {
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 5000,
        }).toString();
      } catch {
        return null;
      }
    },
  });
}
