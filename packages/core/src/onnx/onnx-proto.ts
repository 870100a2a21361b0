/**
 * The subset of ONNX's protobuf schema the platform writes (@dv/train's encoder export, @dv/eval's
 * search graph), as plain TypeScript types, and its encoder: the one ONNX writer of the
 * workspace. Field numbers and enum values are those of onnx/onnx.proto (ONNX IR spec,
 * https://onnx.ai/onnx/repo-docs/IR.html); repeated scalars are written unpacked, as the
 * proto2 schema declares them. Tensor data goes in `raw_data` (little-endian), or, for a tensor
 * with `external`, in a file beside the model: `data_location = EXTERNAL` (field 14) and
 * `external_data` entries `location`, `offset`, `length` (field 13), the layout of ONNX's
 * external-data spec (onnx/docs/ExternalData.md), which models over protobuf's 2 GiB need.
 */
import { ProtoWriter } from './proto-writer.js';

/** TensorProto.DataType values used here. */
export const onnxDataType = Object.freeze({
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
  BOOL: 9,
} as const);
export type OnnxDataType = (typeof onnxDataType)[keyof typeof onnxDataType];

/** AttributeProto.AttributeType values. */
const attributeType = Object.freeze({ FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 } as const);

export interface OnnxTensor {
  readonly name: string;
  readonly dataType: OnnxDataType;
  readonly dims: readonly number[];
  /** Little-endian element bytes. */
  readonly raw: Uint8Array;
  /** Where `raw` is stored instead, when it lives in an external data file. */
  readonly external?: { readonly location: string; readonly offset: number; readonly length: number };
}

export type OnnxAttributeValue =
  | { readonly f: number }
  | { readonly i: number }
  | { readonly s: string }
  | { readonly t: OnnxTensor }
  | { readonly floats: readonly number[] }
  | { readonly ints: readonly number[] };

export interface OnnxNode {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name?: string;
  readonly attributes?: Readonly<Record<string, OnnxAttributeValue>>;
  /** Operator domain; absent = the default ONNX domain (e.g. `com.microsoft` for ORT contrib ops). */
  readonly domain?: string;
}

/** An extra operator set the model imports (besides the default domain at `opsetVersion`). */
export interface OnnxOpsetImport {
  readonly domain: string;
  readonly version: number;
}

/** A dimension: a fixed size, or a symbolic name (dynamic axis). */
export type OnnxDim = number | string;

export interface OnnxValueInfo {
  readonly name: string;
  readonly elemType: OnnxDataType;
  readonly shape: readonly OnnxDim[];
}

export interface OnnxGraph {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

export interface OnnxModel {
  readonly irVersion: number;
  readonly opsetVersion: number;
  /** Further domains the nodes use, e.g. `{ domain: 'com.microsoft', version: 1 }`. */
  readonly opsetImports?: readonly OnnxOpsetImport[];
  readonly producerName: string;
  readonly producerVersion: string;
  readonly docString?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly graph: OnnxGraph;
}

function tensorProto(t: OnnxTensor): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d); // dims
  w.int(2, t.dataType); // data_type
  w.string(8, t.name); // name
  if (!t.external) {
    w.bytes(9, t.raw); // raw_data
    return w;
  }
  const entry = (key: string, value: string) => new ProtoWriter().string(1, key).string(2, value);
  w.message(13, entry('location', t.external.location)); // external_data
  w.message(13, entry('offset', String(t.external.offset)));
  w.message(13, entry('length', String(t.external.length)));
  w.int(14, 1); // data_location = EXTERNAL
  return w;
}

function attributeProto(name: string, value: OnnxAttributeValue): ProtoWriter {
  const w = new ProtoWriter();
  w.string(1, name);
  if ('f' in value) w.float(2, value.f).int(20, attributeType.FLOAT);
  else if ('i' in value) w.int(3, value.i).int(20, attributeType.INT);
  else if ('s' in value) w.string(4, value.s).int(20, attributeType.STRING);
  else if ('t' in value) w.message(5, tensorProto(value.t)).int(20, attributeType.TENSOR);
  else if ('floats' in value) {
    for (const f of value.floats) w.float(7, f);
    w.int(20, attributeType.FLOATS);
  } else {
    for (const i of value.ints) w.int(8, i);
    w.int(20, attributeType.INTS);
  }
  return w;
}

function nodeProto(n: OnnxNode): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const [k, v] of Object.entries(n.attributes ?? {})) w.message(5, attributeProto(k, v));
  if (n.domain) w.string(7, n.domain);
  return w;
}

function valueInfoProto(v: OnnxValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, v.elemType).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

function graphProto(g: OnnxGraph): ProtoWriter {
  const w = new ProtoWriter();
  for (const n of g.nodes) w.message(1, nodeProto(n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, tensorProto(t));
  for (const i of g.inputs) w.message(11, valueInfoProto(i));
  for (const o of g.outputs) w.message(12, valueInfoProto(o));
  return w;
}

/** Encodes a ModelProto; returns chunks whose concatenation is the .onnx file. */
export function encodeOnnxModel(m: OnnxModel): Uint8Array[] {
  const w = new ProtoWriter();
  w.int(1, m.irVersion);
  w.string(2, m.producerName);
  w.string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  w.message(7, graphProto(m.graph));
  w.message(8, new ProtoWriter().string(1, '').int(2, m.opsetVersion));
  for (const o of m.opsetImports ?? []) w.message(8, new ProtoWriter().string(1, o.domain).int(2, o.version));
  for (const [k, v] of Object.entries(m.metadata ?? {})) {
    w.message(14, new ProtoWriter().string(1, k).string(2, v));
  }
  return w.finish();
}
