/**
 * onnxruntime-node, loaded on first use. It is an optional dependency of @dv/eval: its install
 * script fetches CUDA binaries from nuget.org and, where that host is unreachable, npm drops the
 * package instead of failing the install. Metrics, BM25 and the OpenAI encoder never need it;
 * the ONNX encoder and `exactTopKOrt` say how to get it when it is missing.
 */
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
