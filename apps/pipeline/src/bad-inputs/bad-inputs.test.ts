/**
 * The bad-input suite (issue 12): >= 100 things a new user gets wrong, across every command,
 * each checked for its exit code, a message naming the file (and line), no stack trace, no
 * hang, nothing written outside --out and no half-written file. It writes docs/bad-inputs.md
 * (generated here, never by hand). Cases run one after another in this process (`runCommand`
 * over the real command tree: a process per case would cost minutes on 2 cores); the SIGINT
 * case runs the real binary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';
import { CASES, writeSharedInputs } from './cases.js';
import { type CaseOutcome, type Fixture, runCase } from './harness.js';
import { renderBadInputsReport } from './render-report.js';
import { type SuiteServers, startSuiteServers } from './servers.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPORT = join(here, '..', '..', '..', '..', 'docs', 'bad-inputs.md');

describe('bad-input suite', () => {
  let root: string;
  let servers: SuiteServers;
  let base: Omit<Fixture, 'dir' | 'out' | 'file'>;
  const outcomes: CaseOutcome[] = [];
  const saved = process.env.DV_PROGRESS;

  beforeAll(async () => {
    process.env.DV_PROGRESS = 'silent';
    root = mkdtempSync(join(tmpdir(), 'dv-bad-inputs-'));
    servers = await startSuiteServers();
    const shared = writeSharedInputs(join(root, 'shared'));
    const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
    // a small mini world and an offline synth run, for the cases that need existing outputs
    shared.world = join(root, 'shared', 'world');
    const built = await runCommand(
      rootCommand,
      [
        'data',
        'build-mini',
        '--out',
        shared.world,
        '--test-lemmas',
        '20',
        '--dev-lemmas',
        '5',
        '--train-lemmas',
        '20',
        '--general-examples',
        '10',
      ],
      { stdout: quiet, stderr: quiet },
    );
    expect(built).toBe(0);
    shared.synth = join(root, 'shared', 'synth');
    expect(
      await runCommand(
        rootCommand,
        ['synth', '--seeds', shared.seeds!, '--out', shared.synth, '--judge', 'none'],
        { stdout: quiet, stderr: quiet },
      ),
    ).toBe(0);
    base = { shared, urls: servers.urls };
  }, 120_000);

  afterAll(async () => {
    if (saved === undefined) delete process.env.DV_PROGRESS;
    else process.env.DV_PROGRESS = saved;
    await servers?.close();
    const order = new Map(CASES.map((c, i) => [c.id, i]));
    outcomes.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    if (outcomes.length === CASES.length) writeFileSync(REPORT, renderBadInputsReport(outcomes));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('has at least 100 cases with unique ids', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(`${c.group}: ${c.title}`, async () => {
      const o = await runCase(c, root, base);
      outcomes.push(o);
      expect(o.problems, `${o.command}\n${o.message}`).toEqual([]);
    }, 90_000);
  }
});
