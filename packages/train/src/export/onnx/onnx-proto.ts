/** The ONNX protobuf types and encoder live in @dv/core (one writer for every package). */
export {
  encodeOnnxModel,
  type OnnxAttributeValue,
  type OnnxDataType,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
  onnxDataType,
} from '@dv/core';
