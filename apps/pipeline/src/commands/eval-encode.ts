/**
 * `dv eval encode`: one shard of corpus embeddings (@dv/eval `encodeCorpusShard`); `dv eval run
 * --embeddings DIR` ranks with the merged shards (eval/ranker-with-embeddings.ts). Thin: the
 * library owns the format, the checks and the resume rule.
 */
import { join, resolve } from 'node:path';
import { createProgress, DataError } from '@dv/core';
import {
  createRanker,
  DenseRanker,
  detectOrtProviders,
  encodeCorpusShard,
  parseShardSpec,
  precisionProviderNote,
  type Ranker,
  shardStem,
} from '@dv/eval';
import { z } from 'zod';
import { defineCommand, requireString, schemaFlags, UsageError } from '../cli-kit.js';
import { formatterFrom, formatterOptions } from '../eval/formatter-options.js';
import { precisionFrom, precisionOption } from '../eval/precision-option.js';
import { lockOutputFolder } from '../output-folder.js';

/** The shard's batching (the same for every shard) and threads. */
const EncodeSettings = z.object({
  batchSize: z
    .number()
    .int()
    .positive()
    .default(32)
    .describe('texts per encoder call (same for every shard)'),
  threads: z.number().int().positive().optional().describe('onnxruntime intra-op threads'),
});

export const evalEncodeCommand = defineCommand({
  name: 'encode',
  summary: 'encode one shard of a corpus into .npy embeddings',
  usage:
    '--model SPEC --corpus FILE [--shard i/n] --out DIR [--batch-size N] [--threads N] [--precision P] [--json]',
  description: `Encodes shard i of n (0-based) of a corpus with a dense model and writes, into --out:
  embeddings-IIIII-of-NNNNN.npy     float32 (rows, dim), loads with numpy.load
  ids-IIIII-of-NNNNN.jsonl          {"docid", "textSha256"} per row, in row order
  shard-IIIII-of-NNNNN.manifest.json  encoder identity, corpus digest, row range, file digests
The corpus is a Passage JSONL (docid, title, text; BEIR's _id works too). Shards cut the corpus
on whole batches, so merged shards equal one unsharded run byte for byte; run the shards on any
number of machines into one folder (or copy them together), then
'dv eval run --benchmark B --model SPEC --embeddings DIR' searches with them.
A finished shard is not encoded again; an interrupted one (even by kill -9) resumes after its last
finished window of 16 batches when run again with the same settings. Use the formatter options of
the later 'dv eval run'.
ONNX models use the CUDA execution provider when there is a CUDA device and onnxruntime-node's
CUDA provider is installed (DV_ORT_PROVIDER=auto|cpu|cuda), else the CPU, and say which.
--precision int8 runs the folder's int8 graph (onnx/model_qint8.onnx, from 'dv train onnx --precision
int8'): 1.7-2.5x as fast as float32 on the CPUs measured, embeddings within int8 noise of float32
(docs/benchmarks.md).
Use the same --precision for 'dv eval run --embeddings', so queries and documents match.`,
  flags: schemaFlags(EncodeSettings, { 'batch-size': 'batchSize', threads: 'threads' }),
  options: {
    model: {
      type: 'string',
      description: 'dense model spec: onnx:DIR, tfjs:DIR, openai:MODEL',
      valueName: 'SPEC',
    },
    corpus: { type: 'string', description: 'Passage JSONL', valueName: 'FILE' },
    shard: { type: 'string', description: 'which shard, 0-based', valueName: 'i/n', default: '0/1' },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    json: {
      type: 'boolean',
      description:
        'print the shard as one JSON object (rows, dim, files, resumed/skipped); notes stay on stderr',
    },
    ...precisionOption,
    ...formatterOptions,
  },
  async run(ctx) {
    const spec = requireString(ctx, 'model');
    const corpus = resolve(requireString(ctx, 'corpus'));
    const out = resolve(requireString(ctx, 'out'));
    let shard: ReturnType<typeof parseShardSpec>;
    try {
      shard = parseShardSpec(String(ctx.values.shard));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { batchSize, threads } = EncodeSettings.parse(ctx.settings);
    const precision = precisionFrom(ctx, spec);
    // the one output-folder guard, then one writer per shard of the folder (issue 25)
    const lock = lockOutputFolder(out, `dv eval encode --shard ${shard.index}/${shard.count} --out ${out}`, {
      part: `shard-${shardStem(shard)}`,
    });
    try {
      let providers: string[] | undefined;
      if (spec.startsWith('onnx:')) {
        let choice: ReturnType<typeof detectOrtProviders>;
        try {
          choice = detectOrtProviders(process.env);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        ctx.stderr.write(`${choice.message}\n`);
        const note = precision && precisionProviderNote(precision, choice.providers);
        if (note) ctx.stderr.write(`${note}\n`);
        providers = choice.providers;
      }
      let ranker: Ranker;
      try {
        ranker = await createRanker(spec, {
          env: process.env,
          formatter: formatterFrom(ctx),
          ortProviders: providers,
          batchSize,
          threads,
          precision,
        });
      } catch (err) {
        if (err instanceof DataError) throw err;
        throw new UsageError((err as Error).message);
      }
      if (!(ranker instanceof DenseRanker))
        throw new UsageError(`--model ${spec} is not a dense encoder; nothing to encode`);
      let progress: ReturnType<typeof createProgress> | null = null;
      const r = await encodeCorpusShard({
        encoder: ranker.encoder,
        corpus,
        shard,
        out,
        batchSize,
        command: ctx.commandLine.slice(1),
        onProgress: (done, total) => {
          progress ??= createProgress({
            label: `encode shard ${shard.index}/${shard.count}`,
            total,
            unit: 'texts',
          });
          progress.update(done);
        },
      });
      (progress as ReturnType<typeof createProgress> | null)?.done();
      await ranker.encoder.close?.();
      const i = r.info;
      if (r.reencoded)
        ctx.stderr.write(`note: ${r.reencoded}; the shard was not finished, encoded it again\n`);
      const what = r.skipped
        ? 'already complete, nothing encoded'
        : `encoded in ${r.seconds.toFixed(1)} s${r.resumedRows > 0 ? ` (resumed: ${r.resumedRows} rows from an interrupted run)` : ''}`;
      ctx.stderr.write(
        `shard ${shard.index}/${shard.count}: rows ${i.start}-${i.end} of ${i.total} (dim ${i.dim}), ${what}\n` +
          `wrote ${i.files.embeddings}, ${i.files.ids} and ${r.manifest} in ${out}\n`,
      );
      if (ctx.values.json === true)
        ctx.stdout.write(
          `${JSON.stringify({
            out,
            shard: { index: shard.index, count: shard.count },
            rows: { start: i.start, end: i.end, total: i.total },
            dim: i.dim,
            skipped: r.skipped,
            resumedRows: r.resumedRows,
            ...(r.reencoded ? { reencoded: r.reencoded } : {}),
            seconds: r.seconds,
            files: {
              embeddings: join(out, i.files.embeddings),
              ids: join(out, i.files.ids),
              manifest: r.manifest,
            },
          })}\n`,
        );
      return 0;
    } finally {
      lock.release();
    }
  },
});
