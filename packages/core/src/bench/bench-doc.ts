import { readFileSync, writeFileSync } from 'node:fs';
import type { CpuInfo } from './cpu-info.js';

/**
 * Replaces one package's section of docs/benchmarks.md for one CPU family, keeping the other
 * families' sections, so a figure from one machine is never read as another's. Sections are
 * delimited by `<!-- bench:NAME:SLUG:start -->` / `<!-- bench:NAME:SLUG:end -->`; a family not yet
 * in the file is added after the package's last section (or at the end). `body` is the text
 * between the markers; the heading line naming the CPU is prepended here.
 */
export function writeBenchSection(
  doc: string,
  name: string,
  cpu: CpuInfo,
  title: string,
  body: string,
): void {
  const text = readFileSync(doc, 'utf8');
  const start = `<!-- bench:${name}:${cpu.slug}:start -->`;
  const end = `<!-- bench:${name}:${cpu.slug}:end -->`;
  const section = `${start}\n## ${title} — ${cpu.family}\n\nCPU: ${cpu.label}.\n\n${body.trim()}\n${end}`;
  const at = text.indexOf(start);
  let out: string;
  if (at >= 0) {
    const stop = text.indexOf(end, at);
    if (stop < 0) throw new Error(`${doc}: ${start} has no ${end}`);
    out = text.slice(0, at) + section + text.slice(stop + end.length);
  } else {
    const ends = [...text.matchAll(new RegExp(`<!-- bench:${name}:[a-z0-9-]+:end -->`, 'g'))];
    const last = ends.at(-1);
    if (last?.index !== undefined) {
      const pos = last.index + last[0].length;
      out = `${text.slice(0, pos)}\n\n${section}${text.slice(pos)}`;
    } else out = `${text.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(doc, out);
}
