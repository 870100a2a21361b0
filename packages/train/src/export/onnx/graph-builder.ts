/**
 * A small builder for ONNX graphs: unique value names, typed initializers and one method per
 * operator pattern the encoder graphs use. Operator semantics follow the ONNX operator
 * specification at the opset in `onnxOpset` (https://onnx.ai/onnx/operators/).
 */
import {
  type OnnxAttributeValue,
  type OnnxDataType,
  type OnnxGraph,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
  onnxDataType,
} from './onnx-proto.js';

/** Opset 17: the first with LayerNormalization; ReduceL2 still takes `axes` as an attribute. */
export const onnxOpset = 17;
/** IR version 8 is the one that introduced opset 17 (ONNX 1.12). */
export const onnxIrVersion = 8;
/** ONNX Runtime's contrib-operator domain (its fused transformer kernels). */
export const ortContribDomain = 'com.microsoft';

function bytesOf(a: Float32Array | BigInt64Array | Int8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private readonly used = new Set<string>();
  private counter = 0;
  /** Small constants are shared: one initializer per (kind, value). */
  private readonly constants = new Map<string, string>();

  /** A fresh value name starting with `hint`. */
  name(hint: string): string {
    let n = hint;
    while (this.used.has(n)) n = `${hint}_${++this.counter}`;
    this.used.add(n);
    return n;
  }

  /** Reserves an exact name (graph inputs/outputs); throws if taken. */
  reserve(name: string): string {
    if (this.used.has(name)) throw new Error(`ONNX value name "${name}" used twice`);
    this.used.add(name);
    return name;
  }

  floatInit(hint: string, dims: readonly number[], data: Float32Array): string {
    return this.tensorInit(hint, dims, onnxDataType.FLOAT, data);
  }

  int8Init(hint: string, dims: readonly number[], data: Int8Array): string {
    return this.tensorInit(hint, dims, onnxDataType.INT8, data);
  }

  private tensorInit(
    hint: string,
    dims: readonly number[],
    dataType: OnnxDataType,
    data: Float32Array | Int8Array,
  ): string {
    const count = dims.reduce((a, b) => a * b, 1);
    if (data.length !== count)
      throw new Error(`initializer ${hint}: dims [${dims}] need ${count} values, got ${data.length}`);
    const name = this.name(hint);
    this.initializers.push({ name, dataType, dims, raw: bytesOf(data) });
    return name;
  }

  int64Init(hint: string, dims: readonly number[], values: readonly number[]): string {
    const name = this.name(hint);
    const data = BigInt64Array.from(values, (v) => BigInt(v));
    this.initializers.push({ name, dataType: onnxDataType.INT64, dims, raw: bytesOf(data) });
    return name;
  }

  /** Scalar float constant. */
  scalar(value: number, hint = 'const'): string {
    const key = `f:${value}`;
    let name = this.constants.get(key);
    if (!name) {
      name = this.floatInit(hint, [], new Float32Array([value]));
      this.constants.set(key, name);
    }
    return name;
  }

  /** 1-D int64 constant. */
  ints(values: readonly number[], hint = 'ints'): string {
    const key = `i:${values.join(',')}`;
    let name = this.constants.get(key);
    if (!name) {
      name = this.int64Init(hint, [values.length], values);
      this.constants.set(key, name);
    }
    return name;
  }

  /**
   * Adds a node with `outputs` fresh outputs; returns their names. An empty input name is an
   * omitted optional input (ONNX convention).
   */
  node(
    opType: string,
    inputs: readonly string[],
    attributes: Readonly<Record<string, OnnxAttributeValue>> = {},
    outputs = 1,
    hint = opType.toLowerCase(),
    domain?: string,
  ): string[] {
    const outs = Array.from({ length: outputs }, () => this.name(hint));
    const name = this.name(`${hint}_node`);
    this.nodes.push({ opType, inputs, outputs: outs, name, attributes, ...(domain ? { domain } : {}) });
    return outs;
  }

  /** Adds a single-output ONNX Runtime contrib (`com.microsoft`) node; returns its output. */
  contribOp(
    opType: string,
    inputs: readonly string[],
    attributes: Readonly<Record<string, OnnxAttributeValue>> = {},
  ): string {
    return this.node(opType, inputs, attributes, 1, opType.toLowerCase(), ortContribDomain)[0]!;
  }

  /** Adds a single-output node; returns its output name. */
  op(
    opType: string,
    inputs: readonly string[],
    attributes: Readonly<Record<string, OnnxAttributeValue>> = {},
    hint?: string,
  ): string {
    return this.node(opType, inputs, attributes, 1, hint)[0]!;
  }

  /** Copies `value` to the exact name `output` (for graph outputs). */
  identity(value: string, output: string): string {
    this.nodes.push({
      opType: 'Identity',
      inputs: [value],
      outputs: [this.reserve(output)],
      name: this.name(`${output}_node`),
    });
    return output;
  }

  graph(name: string, inputs: readonly OnnxValueInfo[], outputs: readonly OnnxValueInfo[]): OnnxGraph {
    return { name, nodes: this.nodes, initializers: this.initializers, inputs, outputs };
  }
}
