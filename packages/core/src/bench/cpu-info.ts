import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The vector extensions a benchmark names (Linux /proc/cpuinfo flag -> how it is printed). */
const EXTENSIONS: ReadonlyArray<readonly [string, string]> = [
  ['avx2', 'AVX2'],
  ['fma', 'FMA'],
  ['avx512f', 'AVX-512F'],
  ['avx512bw', 'AVX-512BW'],
  ['avx512_vnni', 'AVX-512 VNNI'],
  ['avx512_bf16', 'AVX-512 BF16'],
  ['avx512_fp16', 'AVX-512 FP16'],
  ['amx_tile', 'AMX'],
  ['asimd', 'NEON'],
  ['sve', 'SVE'],
];

/** What a benchmark says about the CPU it ran on. */
export interface CpuInfo {
  /** Model name as the OS reports it ("Intel(R) Xeon(R) Processor", "AMD EPYC 7B13"). */
  model: string;
  /** CPU family the docs keep one table per: "Intel Xeon", "AMD EPYC", else the vendor or model. */
  family: string;
  /** Family as a marker slug ("intel-xeon", "amd-epyc"). */
  slug: string;
  /** Vector extensions present, in EXTENSIONS order (e.g. ["AVX2", "FMA", "AVX-512F"]). */
  extensions: string[];
  /** Logical cores the OS shows this process. */
  cores: number;
  /** "Intel(R) Xeon(R) Processor; AVX2, FMA, AVX-512F, ...; 2 cores". */
  label: string;
}

/**
 * Parses /proc/cpuinfo text (the first processor's `model name` and `flags`/`Features`).
 * Family: "Xeon" in the model -> Intel Xeon, "EPYC" -> AMD EPYC, otherwise the vendor id.
 */
export function parseCpuInfo(text: string, cores: number): CpuInfo {
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim();
  const model = field('model name') ?? field('Model') ?? 'unknown CPU';
  const flags = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/));
  const extensions = EXTENSIONS.filter(([flag]) => flags.has(flag)).map(([, name]) => name);
  const vendor = field('vendor_id') ?? '';
  const family = /xeon/i.test(model)
    ? 'Intel Xeon'
    : /epyc/i.test(model)
      ? 'AMD EPYC'
      : vendor === 'GenuineIntel'
        ? 'Intel'
        : vendor === 'AuthenticAMD'
          ? 'AMD'
          : model;
  const slug =
    family
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'unknown';
  const label = `${model}; ${extensions.length ? extensions.join(', ') : 'no AVX2/AVX-512'}; ${cores} cores`;
  return { model, family, slug, extensions, cores, label };
}

/** This machine's CPU (from /proc/cpuinfo on Linux, from os.cpus() elsewhere). */
export function cpuInfo(): CpuInfo {
  const cores = cpus().length;
  try {
    return parseCpuInfo(readFileSync('/proc/cpuinfo', 'utf8'), cores);
  } catch {
    return parseCpuInfo(`model name : ${cpus()[0]?.model ?? 'unknown CPU'}\n`, cores);
  }
}

/** Busy clock ticks of the whole machine (/proc/stat) and of this process + its waited-for children. */
export interface CpuSample {
  machine: number;
  own: number;
  wall: number;
}

/** Linux CPU accounting now, or undefined elsewhere. */
export function sampleCpu(): CpuSample | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const machine = cpu.slice(0, 8).reduce((x, y) => x + y, 0) - cpu[3]! - cpu[4]!; // minus idle, iowait
    const self = readFileSync('/proc/self/stat', 'utf8');
    // Fields 14-17 of /proc/self/stat: utime, stime, cutime, cstime.
    const f = self
      .slice(self.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return { machine, own: f[11]! + f[12]! + f[13]! + f[14]!, wall: performance.now() };
  } catch {
    return undefined;
  }
}

/**
 * Average number of cores other processes kept busy between two samples: machine busy time
 * minus this process's and its children's, over the wall time (USER_HZ = 100 on Linux).
 */
export function otherProcessesCores(a: CpuSample | undefined, b: CpuSample | undefined): number | undefined {
  if (!a || !b || b.wall <= a.wall) return undefined;
  return Math.max(0, (b.machine - a.machine - (b.own - a.own)) / 100 / ((b.wall - a.wall) / 1000));
}
