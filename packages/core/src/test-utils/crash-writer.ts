// Child process for crash tests: writes records slowly so the parent can kill it mid-write.
// argv: mode (atomic|append|append-grouped) path count
import { JsonlAppender, writeJsonl } from '../index.js';

const [mode, path, countArg] = process.argv.slice(2) as [string, string, string];
const count = Number(countArg);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (mode === 'atomic') {
  await writeJsonl(
    path,
    (async function* () {
      for (let i = 0; i < count; i++) {
        yield { i, pad: 'x'.repeat(1000) };
        if (i === 10) process.stdout.write('started\n');
        if (i >= 10) await sleep(5);
      }
    })(),
  );
} else if (mode === 'append-grouped') {
  // Groups of 7 records per event-loop turn, one write each (groupPerTick).
  const a = new JsonlAppender(path, undefined, { groupPerTick: true });
  for (let i = 0; i < count; i++) {
    a.append({ i, pad: 'x'.repeat(5000) });
    if (i === 70) process.stdout.write('started\n');
    if (i % 7 === 6) await sleep(i >= 70 ? 1 : 0);
  }
  a.close();
} else {
  const a = new JsonlAppender(path);
  for (let i = 0; i < count; i++) {
    a.append({ i, pad: 'x'.repeat(5000) });
    if (i === 10) process.stdout.write('started\n');
    if (i >= 10) await sleep(1);
  }
  a.close();
}
process.stdout.write('finished\n');
