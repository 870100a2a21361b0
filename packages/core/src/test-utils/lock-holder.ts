// Child process for the output-lock tests (output-lock.test.ts).
// argv: dir. Prints "ready", waits for "go" on stdin, tries acquireOutputLock(dir), prints
// "won <pid> [took-over <pid>]" or "lost <message>", holds a won lock until stdin closes,
// then releases it and exits 0.
import { acquireOutputLock } from '../index.js';

const [dir] = process.argv.slice(2) as [string];
process.stdin.setEncoding('utf8');
let buffered = '';
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  if (buffered.includes('go')) {
    buffered = '';
    try {
      const lock = acquireOutputLock(dir, { command: 'lock-holder test' });
      process.stdout.write(
        `won ${process.pid}${lock.tookOverFrom ? ` took-over ${lock.tookOverFrom.pid}` : ''}\n`,
      );
      process.stdin.on('end', () => {
        lock.release();
        process.exit(0);
      });
    } catch (err) {
      process.stdout.write(`lost ${(err as Error).message}\n`);
      process.exit(0);
    }
  }
});
process.stdout.write('ready\n');
