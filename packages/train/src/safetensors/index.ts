/** safetensors I/O: strict reader, atomic writer, dtype registry and half-float conversions. */
export {
  isSafetensorsDtype,
  type SafetensorsArray,
  type SafetensorsDtype,
  safetensorsDtypes,
} from './dtypes.js';
export { bf16ToFloat32, f16ToFloat32, float32ToBf16, float32ToF16 } from './half-float.js';
export {
  parseSafetensors,
  parseSafetensorsHeader,
  type ReadSafetensorsOptions,
  readSafetensors,
  readSafetensorsHeader,
  type SafetensorsFile,
  type SafetensorsHeader,
  type SafetensorsTensor,
  type SafetensorsTensorInfo,
} from './read-safetensors.js';
export { tensorToFloat32 } from './to-float32.js';
export {
  encodeSafetensors,
  encodeSafetensorsChunks,
  type SafetensorsTensorInput,
  type SafetensorsTensorsInput,
  writeSafetensors,
} from './write-safetensors.js';
