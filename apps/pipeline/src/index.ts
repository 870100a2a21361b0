/** @dv/pipeline: the `dv` command tree, usable programmatically (e.g. from tests). */
export { type Command, type CommandContext, NotBuiltError, runCommand, UsageError } from './cli-kit.js';
export { rootCommand } from './commands/root.js';
