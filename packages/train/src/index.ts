export * from './safetensors/index.js';
