#!/usr/bin/env node
// Writes packages/<pkg>/api-report.md: every export of every entry point in the package's
// package.json `exports` (the main entry `.` and each subpath such as `./metrics` or `./testing`,
// one section each, read from its `@dv/source` file), grouped by kind, with its signature as the
// TypeScript checker prints it, so a change to the public API shows up in review as a diff of
// that file. Prints each package's count and the total across packages.
//
//   node scripts/api-report.mjs          rewrite the reports
//   node scripts/api-report.mjs --check  exit 1 (and name the packages) when a report is stale,
//                                        or when the total is over the budget below
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(root, 'package.json'))('typescript');
const packages = ['core', 'data', 'synth', 'train', 'eval'];
/**
 * The fence (issue 23): at most this many names across every entry point of every package. A
 * name is exported when another package, the app, a benchmark or a script imports it, or a README
 * documents it; raise the budget only with a reason in review.
 */
const maxExports = 300;

const kinds = [
  ['Classes', ts.SymbolFlags.Class],
  ['Functions', ts.SymbolFlags.Function],
  ['Constants', ts.SymbolFlags.Variable],
  ['Interfaces', ts.SymbolFlags.Interface],
  ['Types', ts.SymbolFlags.TypeAlias],
  ['Enums', ts.SymbolFlags.Enum],
];

const format = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

/** Public members only: not private/protected, not `#x`, and declared by this class (not Error's statics). */
function isPublicMember(p) {
  if (p.name.startsWith('#')) return false;
  const d = p.declarations?.[0];
  if (!d) return true;
  const mods = ts.getCombinedModifierFlags(d);
  if (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return false;
  return true;
}

/** A property name as source spells it: well-known symbols (`__@iterator@123`) as `[Symbol.iterator]`. */
function propName(p) {
  const m = /^__@(\w+)@\d+$/.exec(p.name);
  return m ? `[Symbol.${m[1]}]` : p.name;
}

function oneLine(text) {
  return text.replace(/\s+/g, ' ').trim();
}

function describe(checker, sym, exported, flags) {
  const decl =
    sym.declarations?.find((d) => (flags & ts.SymbolFlags.Type ? !ts.isVariableDeclaration(d) : true)) ??
    sym.declarations?.[0];
  if (flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(sym, decl);
    return type
      .getCallSignatures()
      .map((s) => `${exported}${oneLine(checker.signatureToString(s, decl, format))}`);
  }
  if (flags & ts.SymbolFlags.Class) {
    const type = checker.getDeclaredTypeOfSymbol(sym);
    const statics = checker.getTypeOfSymbolAtLocation(sym, sym.valueDeclaration ?? decl).getProperties();
    const own = (p) => p.declarations?.some((d) => d.parent === decl) ?? false;
    const members = [
      ...statics
        .filter((p) => p.name !== 'prototype' && own(p) && isPublicMember(p))
        .map((p) => `static ${p.name}`),
      ...type
        .getProperties()
        .filter((p) => isPublicMember(p))
        .map(propName),
    ];
    return [`${exported} { ${members.join(', ')} }`];
  }
  if (flags & ts.SymbolFlags.Variable) {
    const type = checker.getTypeOfSymbolAtLocation(sym, decl);
    const text = oneLine(checker.typeToString(type, decl, format));
    return [`${exported}: ${text.length > 300 ? `${text.slice(0, 297)}...` : text}`];
  }
  if (flags & ts.SymbolFlags.Interface) {
    const type = checker.getDeclaredTypeOfSymbol(sym);
    return [`${exported} { ${type.getProperties().map(propName).join(', ')} }`];
  }
  if (flags & ts.SymbolFlags.TypeAlias) {
    // The alias as written (stable, and says what it is: a union, z.infer<...>, a Map, ...).
    const node = sym.declarations?.find(ts.isTypeAliasDeclaration);
    const text = node ? oneLine(node.type.getText()) : '?';
    return [`${exported} = ${text.length > 300 ? `${text.slice(0, 297)}...` : text}`];
  }
  return [exported];
}

/** The package's entry points: [subpath, source file], from package.json `exports`. */
function entryPoints(dir, manifest) {
  return Object.entries(manifest.exports)
    .filter(([sub]) => sub !== './package.json')
    .map(([sub, target]) => {
      const source = typeof target === 'string' ? target : target['@dv/source'];
      if (!source) throw new Error(`${manifest.name}: exports["${sub}"] has no @dv/source file`);
      return [sub, join(dir, source)];
    });
}

function describeEntry(checker, program, file) {
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  const groups = new Map(kinds.map(([title]) => [title, []]));
  let total = 0;
  for (const exp of checker.getExportsOfModule(moduleSymbol)) {
    const sym = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
    total++;
    // A zod schema is a constant and a type of the same name: listed under both.
    for (const [title, flag] of kinds)
      if (sym.flags & flag)
        groups.get(title).push(...describe(checker, sym, exp.name, flag).map((l) => `- \`${l}\``));
  }
  return { groups, total };
}

function report(pkg) {
  const dir = join(root, 'packages', pkg);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const entries = entryPoints(dir, manifest);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { ...config.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const sections = [];
  const counts = [];
  let total = 0;
  for (const [sub, file] of entries) {
    const { groups, total: n } = describeEntry(checker, program, file);
    total += n;
    const specifier = sub === '.' ? manifest.name : `${manifest.name}/${sub.slice(2)}`;
    counts.push(`\`${specifier}\` ${n}`);
    sections.push('', `## \`${specifier}\` (${relative(dir, file)}, ${n} exports)`);
    for (const [title, items] of groups) {
      if (!items.length) continue;
      sections.push('', `### ${title}`, '', ...items.sort());
    }
  }
  const lines = [
    `# ${manifest.name} public API`,
    '',
    `Generated by \`node scripts/api-report.mjs\` from the entry points in package.json \`exports\``,
    `(${total} exports: ${counts.join(', ')}); checked in CI (\`apps/pipeline/src/api-report.test.ts\`).`,
    'Regenerate it when the public API changes on purpose.',
    ...sections,
  ];
  return { path: join(dir, 'api-report.md'), text: `${lines.join('\n')}\n`, total };
}

const check = process.argv.includes('--check');
const stale = [];
let all = 0;
for (const pkg of packages) {
  const { path, text, total } = report(pkg);
  all += total;
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (old === text) {
    console.log(`${pkg}: ${total} exports, up to date`);
    continue;
  }
  if (check) stale.push(pkg);
  else {
    writeFileSync(path, text);
    console.log(`${pkg}: ${total} exports, wrote ${path}`);
  }
}
console.log(
  `total: ${all} exports across ${packages.length} packages, every entry point counted (budget ${maxExports})`,
);
if (check && all > maxExports) {
  console.error(
    `${all} exports across the packages, over the budget of ${maxExports}: export only what other packages, the app, benchmarks or scripts import (or the README documents), and move test-only helpers to a /testing subpath.`,
  );
  process.exitCode = 1;
}
if (stale.length) {
  console.error(
    `API report out of date for ${stale.join(', ')}: the public API changed. Run \`node scripts/api-report.mjs\` and review the diff.`,
  );
  process.exitCode = 1;
}
