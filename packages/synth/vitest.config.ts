// Shared with every package: ../../vitest.shared.ts.
export { default } from '../../vitest.shared.js';
