/**
 * @dv/core/bench: what the workspace's benchmarks share. CPU model and load sampling (so a
 * figure says on what machine and under how much other load it was taken), the writer of a
 * package's section in docs/benchmarks.md, and the goals table there (one row per goal, its
 * verdict). Not part of the main entry: no library code uses them.
 */

export { writeBenchSection } from './bench-doc.js';
export { type BenchGoalRow, updateBenchGoals } from './bench-goals.js';
export { type CpuSample, cpuInfo, otherProcessesCores, sampleCpu } from './cpu-info.js';
