/**
 * Window checkpoints of one embedding shard (`encodeCorpusShard`): the rows of each finished
 * window are appended to `<npy>.partial` and flushed, then `<npy>.partial.json` is replaced
 * atomically with the number of rows that are safe, the row width and the shard's key
 * (`shardKey` in encode-corpus-shard.ts: identity, corpus and code digests). `restore` reads the safe rows back (a torn tail past them is ignored; a checkpoint
 * of another identity or width is discarded), `save` appends the next ones, `remove` deletes
 * both files once the shard is complete.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { removeStaleTemps, writeJsonAtomic } from '@dv/core';
import { z } from 'zod';

const PartialState = z.object({
  identity: z.string(),
  rows: z.number().int().nonnegative(),
  dim: z.number(),
});

/**
 * The window checkpoints of one shard (see the file comment): float32 rows appended to
 * `<npy>.partial`, the count that is safe in `<npy>.partial.json` (written atomically after the
 * rows are flushed).
 */
export class WindowCheckpoint {
  private readonly data: string;
  private readonly state: string;
  private rows = 0;

  constructor(
    npyPath: string,
    private readonly identity: string,
    private readonly dim: number,
  ) {
    this.data = `${npyPath}.partial`;
    this.state = `${npyPath}.partial.json`;
  }

  /** Copies the checkpointed rows into `matrix`; returns how many (0 when none match). */
  restore(matrix: Float32Array, total: number): number {
    if (!existsSync(this.state) || !existsSync(this.data)) return this.reset();
    let st: z.infer<typeof PartialState>;
    try {
      st = PartialState.parse(JSON.parse(readFileSync(this.state, 'utf8')));
    } catch {
      return this.reset();
    }
    if (st.identity !== this.identity || st.dim !== this.dim || st.rows > total) return this.reset();
    const bytes = st.rows * this.dim * 4;
    const fd = openSync(this.data, 'r');
    try {
      const view = new Uint8Array(matrix.buffer, matrix.byteOffset, bytes);
      let got = 0;
      while (got < bytes) {
        const n = readSync(fd, view, got, bytes - got, got);
        if (n === 0) break;
        got += n;
      }
      if (got < bytes) {
        matrix.fill(0, 0, st.rows * this.dim);
        return this.reset();
      }
    } finally {
      closeSync(fd);
    }
    this.rows = st.rows;
    return st.rows;
  }

  /** Appends rows [saved, rows) of `matrix` and records `rows` as safe. */
  async save(matrix: Float32Array, rows: number): Promise<void> {
    mkdirSync(dirname(this.data), { recursive: true });
    const fd = openSync(this.data, this.rows === 0 ? 'w' : 'r+');
    try {
      // Drop a torn tail an interrupted append may have left past the safe rows.
      ftruncateSync(fd, this.rows * this.dim * 4);
      const from = this.rows * this.dim;
      const part = matrix.subarray(from, rows * this.dim);
      const bytes = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
      let put = 0;
      while (put < bytes.length) put += writeSync(fd, bytes, put, bytes.length - put, from * 4 + put);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await writeJsonAtomic(this.state, { identity: this.identity, rows, dim: this.dim });
    this.rows = rows;
  }

  remove(): void {
    rmSync(this.state, { force: true });
    rmSync(this.data, { force: true });
    // a kill -9 during the state file's atomic write leaves its temporary file beside it
    removeStaleTemps(this.state);
  }

  private reset(): number {
    this.remove();
    this.rows = 0;
    return 0;
  }
}
