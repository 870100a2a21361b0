import { describe, expect, it } from 'vitest';
import { decideCudaDevice, detectCudaDevice } from './cuda-device.js';

const probe = (env: Record<string, string>, files: string[], smi: string | null) =>
  decideCudaDevice({ env, exists: (p) => files.includes(p), nvidiaSmi: () => smi });

describe('decideCudaDevice', () => {
  it('finds the NVIDIA driver or a GPU listed by nvidia-smi', () => {
    expect(probe({}, ['/proc/driver/nvidia/version'], null)).toMatchObject({ present: true });
    expect(probe({}, [], 'GPU 0: NVIDIA H200 (UUID: GPU-1234)\n')).toEqual({
      present: true,
      evidence: 'nvidia-smi -L lists a GPU',
    });
    expect(probe({}, [], 'No devices found.\n')).toEqual({
      present: false,
      evidence: 'nvidia-smi lists no GPU',
    });
    expect(probe({}, [], null)).toEqual({ present: false, evidence: 'no NVIDIA driver, no nvidia-smi' });
  });

  it('DV_CUDA forces the answer; CUDA_VISIBLE_DEVICES=-1 or empty hides devices', () => {
    expect(probe({ DV_CUDA: '0' }, ['/proc/driver/nvidia/version'], null).present).toBe(false);
    expect(probe({ DV_CUDA: '1' }, [], null)).toEqual({ present: true, evidence: 'DV_CUDA=1' });
    for (const v of ['-1', '', 'none'])
      expect(probe({ CUDA_VISIBLE_DEVICES: v }, ['/proc/driver/nvidia/version'], 'GPU 0: x').present).toBe(
        false,
      );
    expect(probe({ CUDA_VISIBLE_DEVICES: '0,1' }, ['/proc/driver/nvidia/version'], null).present).toBe(true);
  });

  it('the real probe answers without throwing', () => {
    const r = detectCudaDevice({});
    expect(typeof r.present).toBe('boolean');
    expect(r.evidence.length).toBeGreaterThan(0);
  });
});
