// Sums vitest JSON reports of every workspace project into one line `N passed, N failed`.
// A project with a test script but no report (it crashed before reporting) counts as 1 failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of ['packages', 'apps']) {
  if (!existsSync(group)) continue;
  for (const name of readdirSync(group)) {
    const dir = join(group, name);
    const pkgFile = join(dir, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    if (!pkg.scripts?.test) continue;
    const report = join(dir, '.reports', 'vitest.json');
    if (!existsSync(report)) {
      console.log(`${pkg.name}: no test report (the test run crashed or did not start)`);
      failed += 1;
      continue;
    }
    const r = JSON.parse(readFileSync(report, 'utf8'));
    const p = r.numPassedTests ?? 0;
    const f = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0);
    const s = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    console.log(`${pkg.name}: ${p} passed, ${f} failed, ${s} skipped`);
    passed += p;
    failed += f;
    skipped += s;
  }
}
// Lint and typecheck (run by .ci/run before the tests) count one each.
const checksFile = join('.reports', 'ci-checks.json');
if (existsSync(checksFile)) {
  for (const [name, ok] of Object.entries(JSON.parse(readFileSync(checksFile, 'utf8')))) {
    console.log(`${name}: ${ok ? 'passed' : 'FAILED'}`);
    if (ok) passed += 1;
    else failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
