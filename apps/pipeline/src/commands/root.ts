/** The command tree of `dv`, assembled in command-tree/root.ts (kept here for existing imports). */
export { rootCommand } from '../command-tree/root.js';
