/**
 * onnxruntime-node, loaded on first use. It is an optional dependency of @dv/eval: its install
 * script fetches CUDA binaries from nuget.org and, where that host is unreachable, npm drops the
 * package instead of failing the install. Metrics, BM25 and the OpenAI encoder never need it;
 * the ONNX encoder and `exactTopKOrt` say how to get it when it is missing.
 */
import { availableParallelism } from 'node:os';
import type * as Ort from 'onnxruntime-node';

export type OrtModule = typeof Ort;

let loaded: Promise<OrtModule> | undefined;

export function loadOnnxRuntime(): Promise<OrtModule> {
  loaded ??= import('onnxruntime-node').then(
    (m) => ((m as unknown as { default?: OrtModule }).default ?? m) as OrtModule,
    (err: unknown) => {
      loaded = undefined;
      throw new Error(
        `onnxruntime-node is not installed (${(err as Error).message.split('\n')[0]}); it is an optional dependency of @dv/eval whose install script needs nuget.org: install it with \`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0\` (the CPU build ships in the package)`,
      );
    },
  );
  return loaded;
}

/**
 * CPU session options of @dv/eval's sessions (the ONNX encoder, `exactTopKOrt`): ORT's full
 * graph optimisation, sequential execution with one inter-op thread, `threads` intra-op
 * threads (default: the cores Node may use), the CPU arena and memory patterns, and pool
 * threads that sleep rather than spin between ops unless `spinning`. On the shared 2-core
 * machines this project runs on, spinning threads burn the cycles the working ones need:
 * measured under contention, the encoder took 0.6x the CPU time and half the wall time
 * without spinning, exactTopKOrt 0.85x the CPU time (docs/benchmarks.md).
 */
export function cpuSessionOptions(
  options: { threads?: number; spinning?: boolean } = {},
): Ort.InferenceSession.SessionOptions {
  const spin = options.spinning ? '1' : '0';
  return {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: options.threads ?? availableParallelism(),
    interOpNumThreads: 1,
    enableCpuMemArena: true,
    enableMemPattern: true,
    extra: { session: { 'intra_op.allow_spinning': spin, 'inter_op.allow_spinning': spin } },
  };
}
