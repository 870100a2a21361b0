import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { notBuilt } from './cli-kit.js';
import type { Command } from './index.js';
import { rootCommand, runCommand } from './index.js';

const here = dirname(fileURLToPath(import.meta.url));
const appDir = join(here, '..');
const run = promisify(execFile);

/** Runs the real CLI in a child process, as `pnpm dv` does. */
async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, 'cli.ts'), ...args],
      {
        cwd: appDir,
        env: { ...process.env, npm_lifecycle_event: '' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function allPaths(cmd: Command, prefix: string[] = []): string[][] {
  const here = cmd.name === 'dv' ? prefix : [...prefix, cmd.name];
  return [here, ...(cmd.subcommands ?? []).flatMap((c) => allPaths(c, here))];
}

describe('dv CLI', () => {
  it('every command answers --help with a usage line and exit 0', async () => {
    // In-process over the real command tree (a process per command would take minutes on 2 cores);
    // the spawned CLI is exercised by the other tests here.
    const paths = allPaths(rootCommand);
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) {
      let out = '';
      const write = (c: string) => {
        out += c;
        return true;
      };
      const stdout = { write } as unknown as NodeJS.WritableStream;
      const code = await runCommand(rootCommand, [...path, '--help'], { stdout, stderr: stdout });
      expect(code, path.join(' ')).toBe(0);
      expect(out).toContain(`Usage: dv${path.length ? ` ${path.join(' ')}` : ''}`);
    }
    const r = await dv(['eval', 'trec', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: dv eval trec');
  });

  it('unknown commands and options are usage errors (exit 2)', async () => {
    expect((await dv(['frobnicate'])).code).toBe(2);
    const r = await dv(['validate', '--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--nope'");
  });

  it('stages that are not built say so, write nothing and exit 3', async () => {
    const root: Command = {
      name: 'dv',
      summary: 'test',
      subcommands: [notBuilt('later', 'a later stage', 'issue: x')],
    };
    const chunks: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (d) => chunks.push(String(d)));
    const out = new PassThrough();
    let stdout = '';
    out.on('data', (d) => {
      stdout += String(d);
    });
    expect(await runCommand(root, ['later'], { stdout: out, stderr: sink })).toBe(3);
    expect(chunks.join('')).toContain('not built yet');
    expect(stdout).toBe('');
  });

  describe('validate: malformed JSONL gives file:line and a non-zero exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-cli-'));
    const seed = (id: string) =>
      JSON.stringify({
        id,
        query: 'bass',
        instruction: { text: 'Only fish.' },
        positives: [{ docid: 'd', text: 't' }],
      });
    const cases: Array<[string, string, RegExp]> = [
      ['bad-json.jsonl', `${seed('a')}\n{"id": "b",\n`, /bad-json\.jsonl:2: invalid JSON/],
      [
        'schema.jsonl',
        `${seed('a')}\n${seed('b')}\n{"id":"c","query":"bass","instruction":{"text":"x"},"positives":[]}\n`,
        /schema\.jsonl:3: positives: a seed example needs at least one positive/,
      ],
      [
        'dup.jsonl',
        `${seed('a')}\n${seed('b')}\n${seed('a')}\n`,
        /dup\.jsonl:3: duplicate id "a" \(first seen on line 1\)/,
      ],
    ];
    for (const [name, body, re] of cases) {
      it(name, async () => {
        const f = join(dir, name);
        writeFileSync(f, body);
        const r = await dv(['validate', '--schema', 'seed-example', f]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(re);
      });
    }
    it('a valid file passes with a count', async () => {
      const f = join(dir, 'ok.jsonl');
      writeFileSync(f, `${seed('a')}\n${seed('b')}\n`);
      const r = await dv(['validate', '--schema', 'seed-example', f]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('2 valid seed-example records');
    });
  });
});
