/**
 * Fast JSONL writing for the mini world's large files: passages (which repeat across seeds,
 * general examples and benchmarks) are serialised once and spliced into each record's line, and
 * lines go out in ~1 MB chunks through @dv/core's atomic writer. The output is ordinary JSON:
 * each line parses to the same record (key order: passage lists last).
 */
import { type Passage, writeAtomic } from '@dv/core';

export class PassageJson {
  private readonly cache = new Map<string, string>();

  of(p: Passage): string {
    let s = this.cache.get(p.docid);
    if (s === undefined) {
      s = JSON.stringify(p);
      this.cache.set(p.docid, s);
    }
    return s;
  }

  list(ps: ReadonlyArray<Passage>): string {
    return `[${ps.map((p) => this.of(p)).join(',')}]`;
  }
}

/** `record` without `listKeys`, then each list of passages, as one JSON line. */
export function lineWithPassages<T extends object>(
  record: T,
  listKeys: ReadonlyArray<keyof T & string>,
  json: PassageJson,
): string {
  const rest: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const k of listKeys) delete rest[k];
  const head = JSON.stringify(rest);
  const lists = listKeys.map((k) => `${JSON.stringify(k)}:${json.list(record[k] as Passage[])}`).join(',');
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${lists}}\n`;
}

/** Writes lines atomically in ~1 MB chunks. */
export async function writeLines(path: string, lines: Iterable<string>): Promise<number> {
  let n = 0;
  await writeAtomic(path, (write) => {
    let buf: string[] = [];
    let size = 0;
    for (const line of lines) {
      buf.push(line);
      size += line.length;
      n++;
      if (size > 1 << 20) {
        write(buf.join(''));
        buf = [];
        size = 0;
      }
    }
    if (buf.length > 0) write(buf.join(''));
  });
  return n;
}
