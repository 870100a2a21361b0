/**
 * The shape of the command files (issue 23): each is a thin driver under 200 lines (parse ->
 * one partial config -> one zod parse -> one library call -> print), imports the kit and the
 * libraries but never another command file (groups are assembled in command-tree/), counts no
 * argv positions (the kit gives `commandLine`) and parses no number itself (numbers are flags
 * from a schema: command-tree/flag-tables.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
const source = (f: string) => readFileSync(join(here, f), 'utf8');
const imports = (f: string) => [...source(f).matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]!);

describe('command files', () => {
  it('are found', () => {
    expect(files.length).toBeGreaterThan(15);
  });

  it.each(files)('%s has fewer than 200 lines', (f) => {
    expect(source(f).split('\n').length).toBeLessThan(200);
  });

  it.each(files)('%s imports no other command file', (f) => {
    const own = imports(f).filter((p) => p.startsWith('./') || /(^|\/)commands\//.test(p));
    expect(own).toEqual([]);
  });

  it.each(files)('%s reads neither argv positions nor numbers itself', (f) => {
    const s = source(f);
    expect(s).not.toMatch(/process\.argv/);
    expect(s).not.toMatch(/\b(numberOption|parseNumber|NumberSpec)\b/);
  });
});
