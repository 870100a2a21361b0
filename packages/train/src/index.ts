export * from './export/index.js';
export * from './safetensors/index.js';
