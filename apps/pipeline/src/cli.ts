#!/usr/bin/env node
/** Entry point of `pnpm dv <command>` (and of the `dv` binary of the built app). */
import { runCommand } from './cli-kit.js';
import { rootCommand } from './commands/root.js';

// `pnpm dv` runs in the workspace root; resolve the user's relative paths from where they typed it.
const viaPnpmScript = ['dv', 'reproduce'].includes(process.env.npm_lifecycle_event ?? '');
if (viaPnpmScript && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

process.exitCode = await runCommand(rootCommand, process.argv.slice(2));
