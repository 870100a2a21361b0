/**
 * The ONNX graph-building operations an architecture's `onnxGraph` uses, declared on this side
 * so that `architectures/` does not import `export/onnx/` (which imports the registry): the
 * exporter's `OnnxLayers` (export/onnx/onnx-layers.ts) and its `GraphBuilder` satisfy these
 * structurally. Values are ONNX value names; shapes are in the comments of `OnnxLayers`.
 */
import type { OnnxAttributeValue } from '@dv/core';
import type { EncoderConfigBase } from './config-fields.js';

/** The node and initializer primitives of one graph build (`GraphBuilder`). */
export interface OnnxGraphBuilderOps {
  /** Adds a node with `outputs` fresh outputs; returns their names. */
  node(
    opType: string,
    inputs: readonly string[],
    attributes?: Readonly<Record<string, OnnxAttributeValue>>,
    outputs?: number,
    hint?: string,
    domain?: string,
  ): string[];
  /** Adds a single-output node; returns its output name. */
  op(
    opType: string,
    inputs: readonly string[],
    attributes?: Readonly<Record<string, OnnxAttributeValue>>,
    hint?: string,
  ): string;
  floatInit(hint: string, dims: readonly number[], data: Float32Array): string;
  int64Init(hint: string, dims: readonly number[], values: readonly number[]): string;
  scalar(value: number, hint?: string): string;
  ints(values: readonly number[], hint?: string): string;
}

/** The encoder layer blocks (`OnnxLayers`): weights by Hugging Face name, fused or not. */
export interface OnnxGraphOps {
  readonly b: OnnxGraphBuilderOps;
  readonly config: EncoderConfigBase;
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;
  w(name: string, shape: readonly number[]): Float32Array;
  linear(x: string, name: string, inDim: number, outDim: number, bias?: boolean): string;
  linearActivation(x: string, name: string, inDim: number, outDim: number): string;
  linearResidualLayerNorm(
    x: string,
    name: string,
    inDim: number,
    outDim: number,
    residual: string,
    lnName: string,
  ): string;
  layerNorm(x: string, name: string): string;
  activation(x: string): string;
  splitHeads(x: string): string;
  selfAttention(x: string, prefix: string, attentionMask: string, maskBias: string): string;
  attendMasked(q: string, k: string, v: string, attentionMask: string, maskBias: string): string;
  sequenceLength(inputIds: string): string;
  wordEmbeddings(inputIds: string): string;
}
