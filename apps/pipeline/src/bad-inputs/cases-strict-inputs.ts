/**
 * Bad-input cases for strict inputs and verified reuse (issue 25, the second checked round):
 * misspelt `--config` keys (were ignored by `dv train run`, `dv train export` and `dv reproduce`),
 * a config value of the wrong type, duplicate example ids in a mix, invalid UTF-8 in a JSONL
 * input (was replaced with U+FFFD), random bytes as an MLM corpus, an empty corpus given to
 * `dv eval encode` (wrote a 0-row shard, exit 0), `dv train export --init ./nope` (taken as a
 * Hub id), a finished shard whose `.npy` was truncated (kept, exit 0), a NaN in the embedding
 * cache (used: p-MRR 0.5 -> 0.0), a reproduce run folder of another config, a corrupted or
 * truncated stage output, and a truncated newest trainer checkpoint (falls back to the older
 * intact one). Each states the outcome a user should get.
 *
 * Fixtures are built once, in the first case's setup (before the harness looks for stray
 * files): a mini-bert init folder (`dv train vocab` + `dv train init`, ~3 s) and a reproduce run
 * folder with a tiny world (`dv reproduce --quick --only world`, ~10 s), copied into each
 * reproduce case's `--out`.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { runCommand } from '../cli-kit.js';
import { rootCommand } from '../commands/root.js';
import type { BadInputCase, Fixture } from './harness.js';

type Expect = BadInputCase['expect'];
const usage = (message: RegExp): Expect => ({ code: 2, message });
const fails = (message: RegExp, names?: (f: Fixture) => string[]): Expect => ({
  code: 1,
  message,
  ...(names ? { names } : {}),
});
const ok = (message: RegExp, names?: (f: Fixture) => string[]): Expect => ({
  code: 0,
  message,
  ...(names ? { names } : {}),
});

/** A dual-view mix of `lemmas` pairs (2 rows each, ids `w<l>-o` / `w<l>-c`), as JSONL lines. */
function mixRows(lemmas: number): string[] {
  const rows: string[] = [];
  for (let l = 0; l < lemmas; l++) {
    const da = { docid: `w${l}.a`, title: `w${l}`, text: `w${l}: an animal thing` };
    const db = { docid: `w${l}.b`, title: `w${l}`, text: `w${l}: a music thing` };
    const base = { query: `w${l}`, pairId: `w${l}` };
    rows.push(
      JSON.stringify({
        id: `w${l}-o`,
        ...base,
        instruction: 'Only animals.',
        positives: [da],
        negatives: [db],
        view: 'original',
      }),
      JSON.stringify({
        id: `w${l}-c`,
        ...base,
        instruction: 'Not animals.',
        positives: [db],
        negatives: [da],
        view: 'complement',
        originalId: `w${l}-o`,
        synthesisKey: `k${l}`,
      }),
    );
  }
  return rows;
}
const MIX = `${mixRows(4).join('\n')}\n`;
/** The same mix with its first pair written again at the end (lines 9-10 repeat lines 1-2). */
const DUPLICATED_MIX = `${[...mixRows(4), ...mixRows(1)].join('\n')}\n`;

/** Latin-1 bytes where UTF-8 is expected: line 2 holds a lone 0xe9 ('é' in Latin-1). */
const LATIN1_PASSAGES = Buffer.concat([
  Buffer.from('{"docid":"d1","title":"","text":"fine"}\n{"docid":"d2","title":"","text":"caf'),
  Buffer.from([0xe9]),
  Buffer.from('"}\n'),
]);

/** 4 KiB of deterministic "random" bytes (an LCG), as `head -c 4096 /dev/urandom` would give. */
function randomBytes(): Buffer {
  let x = 2026;
  return Buffer.from(
    Uint8Array.from({ length: 4096 }, () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x >> 23;
    }),
  );
}

const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
async function dvQuiet(argv: string[], what: string): Promise<void> {
  const code = await runCommand(rootCommand, argv, { stdout: quiet, stderr: quiet });
  if (code !== 0) throw new Error(`fixture: ${what} exited ${code} (dv ${argv.join(' ')})`);
}

/** Shared fixtures, next to the case sandboxes (built in a setup, so never "outside --out"). */
const sharedDir = (f: Fixture) => join(dirname(f.dir), 'strict-inputs-shared');

let initOnce: Promise<string> | null = null;
/** A mini-bert init folder (random weights, a 60-piece vocabulary): a loadable tfjs:DIR model. */
function miniInit(f: Fixture): Promise<string> {
  initOnce ??= (async () => {
    const dir = sharedDir(f);
    mkdirSync(dir, { recursive: true });
    const texts = join(dir, 'texts.txt');
    const rows = mixRows(4).map(
      (r) => JSON.parse(r) as { instruction: string; positives: { text: string }[] },
    );
    writeFileSync(texts, rows.map((r) => `${r.instruction}\n${r.positives[0]!.text}`).join('\n'));
    await dvQuiet(['train', 'vocab', '--out', join(dir, 'tok'), '--vocab-size', '60', texts], 'train vocab');
    const init = join(dir, 'init');
    const tok = join(dir, 'tok', 'tokenizer.json');
    await dvQuiet(
      ['train', 'init', '--backbone', 'mini-bert', '--tokenizer', tok, '--out', init],
      'train init',
    );
    return init;
  })();
  return initOnce;
}

/** The reproduce config of these cases: the quick profile with a tiny world. */
const TINY_WORLD = {
  testLemmas: 20,
  devLemmas: 5,
  trainLemmas: 20,
  generalExamples: 10,
  candidates: 10,
  infosearchTopicsPerLever: 3,
  infosearchDistractors: 3,
  hardNegatives: 2,
};
const tinyConfig = (f: Fixture, world: Record<string, unknown> = {}) =>
  f.file('tiny.json', JSON.stringify({ world: { ...TINY_WORLD, ...world } }));

let runOnce: Promise<string> | null = null;
/** A reproduce run folder whose world stage finished (tiny config), built once. */
function finishedWorldRun(f: Fixture): Promise<string> {
  runOnce ??= (async () => {
    const run = join(sharedDir(f), 'reproduce-run');
    mkdirSync(sharedDir(f), { recursive: true });
    const config = join(sharedDir(f), 'tiny.json');
    cpSync(tinyConfig(f), config);
    await dvQuiet(
      ['reproduce', '--quick', '--config', config, '--only', 'world', '--out', run],
      'reproduce --only world',
    );
    return run;
  })();
  return runOnce;
}
/** Copies the finished run into the case's --out. */
async function runFolderInOut(f: Fixture): Promise<void> {
  cpSync(await finishedWorldRun(f), f.out, { recursive: true });
}
const reproduceArgv = (f: Fixture, only: string) => [
  'reproduce',
  '--quick',
  '--config',
  join(f.dir, 'in', 'tiny.json'),
  '--only',
  only,
  '--out',
  f.out,
];
const worldFile = (f: Fixture, rel: string) => join(f.out, 'stages', 'world', rel);

/** `dv train run` of the toy mix from the shared init (3 steps, a checkpoint after each). */
const trainRunArgv = (f: Fixture) => [
  'train',
  'run',
  '--mix',
  join(f.dir, 'in', 'mix.jsonl'),
  '--init',
  join(sharedDir(f), 'init'),
  '--out',
  f.out,
  '--steps',
  '3',
  '--batch',
  '4',
  '--checkpoint-every',
  '1',
];

export const STRICT_INPUT_CASES: BadInputCase[] = [
  // strict configs: a misspelt key was dropped by zod and the preset's value used
  {
    id: 'train-run-config-unknown-key',
    group: 'train run',
    title: '--config with a misspelt key (optimizer.lrr)',
    argv: (f) => [
      'train',
      'run',
      '--config',
      f.file('config.json', '{\n  "optimizer": {\n    "lrr": 0.001\n  }\n}\n'),
      '--mix',
      f.file('mix.jsonl', MIX),
      '--init',
      f.dir,
      '--out',
      f.out,
    ],
    expect: usage(/unknown key 'optimizer\.lrr' in .*config\.json:3: did you mean 'lr'\?/),
  },
  {
    id: 'train-export-config-unknown-key',
    group: 'train export',
    title: '--config with a misspelt key (batch.batchSzie)',
    argv: (f) => [
      'train',
      'export',
      '--engine',
      'tevatron',
      '--config',
      f.file('config.json', '{"batch": {"batchSzie": 8}}\n'),
      '--mix',
      f.file('mix.jsonl', MIX),
      '--init',
      'org/model',
      '--out',
      f.out,
    ],
    expect: usage(/unknown key 'batch\.batchSzie' in .*config\.json:1: did you mean 'batchSize'\?/),
  },
  {
    id: 'reproduce-config-unknown-key',
    group: 'reproduce',
    title: '--config with a misspelt key (world.testLemma)',
    argv: (f) => [
      'reproduce',
      '--quick',
      '--config',
      f.file('config.json', '{\n  "world": { "testLemma": 5 }\n}\n'),
      '--out',
      f.out,
    ],
    expect: fails(/unknown key 'world\.testLemma' in .*config\.json:2: did you mean 'testLemmas'\?/, (f) => [
      join(f.dir, 'in', 'config.json'),
    ]),
  },
  {
    id: 'reproduce-config-wrong-type',
    group: 'reproduce',
    title: '--config with a value of the wrong type (seeds: "three")',
    argv: (f) => [
      'reproduce',
      '--quick',
      '--config',
      f.file('config.json', '{"seeds": "three"}\n'),
      '--out',
      f.out,
    ],
    expect: fails(/config\.json: invalid reproduce config: seeds: /, (f) => [
      join(f.dir, 'in', 'config.json'),
    ]),
  },
  // duplicate ids in a mix were trained on twice without a word
  {
    id: 'train-run-mix-duplicate-ids',
    group: 'train run',
    title: 'a mix whose first pair is written twice (duplicate ids)',
    setup: async (f) => {
      await miniInit(f);
    },
    argv: (f) => [
      'train',
      'run',
      '--mix',
      f.file('mix.jsonl', DUPLICATED_MIX),
      '--init',
      join(sharedDir(f), 'init'),
      '--out',
      f.out,
      '--steps',
      '2',
      '--batch',
      '4',
    ],
    expect: fails(/mix\.jsonl:9: duplicate example id "w0-o" \(first on line 1\)/, (f) => [
      join(f.dir, 'in', 'mix.jsonl'),
    ]),
  },
  {
    id: 'train-export-mix-duplicate-ids',
    group: 'train export',
    title: 'a mix whose first pair is written twice (duplicate ids)',
    argv: (f) => [
      'train',
      'export',
      '--engine',
      'tevatron',
      '--mix',
      f.file('mix.jsonl', DUPLICATED_MIX),
      '--init',
      'org/model',
      '--out',
      f.out,
    ],
    expect: fails(/mix\.jsonl:9: duplicate example id "w0-o" \(first on line 1\)/, (f) => [
      join(f.dir, 'in', 'mix.jsonl'),
    ]),
  },
  // invalid UTF-8 was decoded to U+FFFD and read on
  {
    id: 'validate-invalid-utf8',
    group: 'validate',
    title: 'a JSONL file with a Latin-1 byte (invalid UTF-8) on line 2',
    argv: (f) => ['validate', '--schema', 'passage', f.file('latin1.jsonl', LATIN1_PASSAGES)],
    expect: fails(
      /latin1\.jsonl:2: invalid UTF-8 \(byte 0xe9 at byte 37 of the line\); the file must be UTF-8 text/,
    ),
  },
  {
    id: 'train-export-mix-invalid-utf8',
    group: 'train export',
    title: 'a mix with a byte that is not UTF-8',
    argv: (f) => [
      'train',
      'export',
      '--engine',
      'tevatron',
      '--mix',
      f.file('mix.jsonl', Buffer.concat([Buffer.from(MIX), Buffer.from([0xff, 0xfe, 0x0a])])),
      '--init',
      'org/model',
      '--out',
      f.out,
    ],
    expect: fails(/mix\.jsonl:9: invalid UTF-8 \(byte 0xff at byte 1 of the line\)/),
  },
  // random bytes as an MLM corpus were trained on
  {
    id: 'train-mlm-random-bytes',
    group: 'train mlm',
    title: '--corpus random.bin (4 KiB of random bytes)',
    argv: (f) => ['train', 'mlm', '--corpus', f.file('random.bin', randomBytes()), '--mlm-out', f.out],
    expect: fails(/random\.bin:1: invalid UTF-8 \(byte 0x[0-9a-f]{2} at byte \d+ of the line\)/, (f) => [
      join(f.dir, 'in', 'random.bin'),
    ]),
  },
  {
    id: 'train-mlm-binary-nul',
    group: 'train mlm',
    title: '--corpus with NUL bytes (valid UTF-8, but binary)',
    argv: (f) => [
      'train',
      'mlm',
      '--corpus',
      f.file('corpus.txt', Buffer.from('a plain line\nab\u0000\u0001cd\n')),
      '--mlm-out',
      f.out,
    ],
    expect: fails(/corpus\.txt:2: binary data \(byte 0x00\): an MLM corpus is text/),
  },
  // an empty corpus was encoded to a 0-row shard, exit 0
  {
    id: 'encode-empty-corpus',
    group: 'eval encode',
    title: 'an empty corpus (one blank line)',
    setup: async (f) => {
      await miniInit(f);
    },
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      `tfjs:${join(sharedDir(f), 'init')}`,
      '--corpus',
      f.file('empty.jsonl', '\n'),
      '--out',
      f.out,
    ],
    expect: fails(/empty\.jsonl: the corpus has no documents/, (f) => [join(f.dir, 'in', 'empty.jsonl')]),
  },
  // a re-run kept a finished shard whose .npy had been truncated, exit 0
  {
    id: 'encode-finished-shard-truncated',
    group: 'eval encode',
    title: 're-run over a finished shard whose .npy was truncated (the manifest holds its sha256)',
    setup: async (f) => {
      const model = `tfjs:${await miniInit(f)}`;
      const corpus = f.file(
        'corpus.jsonl',
        '{"docid":"d1","title":"","text":"w0 an animal"}\n{"docid":"d2","title":"","text":"w1 music"}\n',
      );
      await dvQuiet(['eval', 'encode', '--model', model, '--corpus', corpus, '--out', f.out], 'eval encode');
      const npy = join(f.out, 'embeddings-00000-of-00001.npy');
      truncateSync(npy, statSync(npy).size - 64);
    },
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      `tfjs:${join(sharedDir(f), 'init')}`,
      '--corpus',
      join(f.dir, 'in', 'corpus.jsonl'),
      '--out',
      f.out,
    ],
    expect: ok(
      /note: .*embeddings-00000-of-00001\.npy has \d+ bytes, its manifest records \d+ \(truncated\?\); the shard was not finished, encoded it again/,
    ),
  },
  // a NaN in the embedding cache was used (p-MRR 0.5 -> 0.0)
  {
    id: 'eval-run-embedding-cache-nan',
    group: 'eval run',
    title: 'a NaN written into a cached corpus embedding (--cache-dir)',
    setup: async (f) => {
      const model = `tfjs:${await miniInit(f)}`;
      const cache = join(f.dir, 'in', 'cache');
      const argv = ['eval', 'run', '--benchmark', 'mini', '--data', f.shared.world!, '--model', model];
      await dvQuiet([...argv, '--cache-dir', cache, '--out', join(f.dir, 'in', 'first')], 'eval run');
      const bin = readdirSync(cache).find((n) => n.endsWith('.f32'));
      if (!bin) throw new Error('fixture: eval run left no cached embeddings');
      const bytes = readFileSync(join(cache, bin));
      bytes.writeFloatLE(Number.NaN, 4 * 5);
      writeFileSync(join(cache, bin), bytes);
    },
    argv: (f) => [
      'eval',
      'run',
      '--benchmark',
      'mini',
      '--data',
      f.shared.world!,
      '--model',
      `tfjs:${join(sharedDir(f), 'init')}`,
      '--cache-dir',
      join(f.dir, 'in', 'cache'),
      '--out',
      f.out,
    ],
    expect: ok(
      /note: embedding cache .*\.f32: sha256 [0-9a-f]{12} differs from the recorded [0-9a-f]{12}; not used, encoding again/,
    ),
  },
  // --init ./nope was written into the launch line as a Hub id
  {
    id: 'train-export-init-path-missing',
    group: 'train export',
    title: '--init ./nope (a path that does not exist)',
    argv: (f) => [
      'train',
      'export',
      '--engine',
      'sentence-transformers',
      '--mix',
      f.file('mix.jsonl', MIX),
      '--init',
      './nope',
      '--out',
      f.out,
    ],
    expect: fails(/nope: the backbone folder does not exist \(a Hub id is written org\/name\)/),
  },
  // reproduce: another config's run folder, damaged stage outputs
  {
    id: 'reproduce-out-other-config',
    group: 'reproduce',
    title: "--out is another config's run folder (world.candidates differs)",
    setup: async (f) => {
      await runFolderInOut(f);
      tinyConfig(f, { candidates: 9 });
    },
    argv: (f) => reproduceArgv(f, 'world'),
    expect: ok(
      /note: .* holds a run of another config \(differs in world\.candidates\); the stages these reach run again and replace their results there, the rest are reused/,
    ),
  },
  {
    id: 'reproduce-stage-output-corrupted',
    group: 'reproduce',
    title: 'a finished stage output changed in place (same size): --only synth over it',
    setup: async (f) => {
      await runFolderInOut(f);
      tinyConfig(f);
      const p = worldFile(f, 'benchmark/followir/queries.jsonl');
      const bytes = readFileSync(p);
      bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
      writeFileSync(p, bytes);
    },
    argv: (f) => reproduceArgv(f, 'synth'),
    expect: ok(
      /world: finished before, but .*queries\.jsonl changed since the stage finished \(sha256 [0-9a-f]{12}, recorded [0-9a-f]{12}\); running it again/,
    ),
  },
  {
    id: 'reproduce-stage-output-truncated',
    group: 'reproduce',
    title: 'a finished stage output truncated: --only synth over it',
    setup: async (f) => {
      await runFolderInOut(f);
      tinyConfig(f);
      const p = worldFile(f, 'benchmark/followir/top_ranked.jsonl');
      truncateSync(p, Math.floor(statSync(p).size / 2));
    },
    argv: (f) => reproduceArgv(f, 'synth'),
    expect: ok(
      /world: finished before, but .*top_ranked\.jsonl has \d+ bytes, \d+ when the stage finished; running it again/,
    ),
  },
  // a corrupt newest trainer checkpoint: the run resumes from the newest intact one
  {
    id: 'train-run-checkpoint-truncated',
    group: 'train run',
    title: 'an interrupted run whose newest checkpoint was truncated',
    setup: async (f) => {
      await miniInit(f);
      f.file('mix.jsonl', MIX);
      await dvQuiet(trainRunArgv(f), 'train run');
      // as if killed after the last checkpoint: no summary, the newest checkpoint cut short
      rmSync(join(f.out, 'summary.json'), { force: true });
      const root = join(f.out, 'checkpoints');
      const newest = readdirSync(root)
        .filter((n) => /^step-\d+$/.test(n))
        .sort()
        .at(-1);
      if (!newest) throw new Error('fixture: train run left no checkpoint');
      const weights = join(root, newest, 'model.safetensors');
      if (!existsSync(weights)) throw new Error(`fixture: no ${weights}`);
      truncateSync(weights, Math.floor(statSync(weights).size / 2));
    },
    argv: (f) => trainRunArgv(f),
    expect: ok(
      /checkpoint .*step-\d+ is corrupt \(.*\); moved aside to .*; resuming from the newest intact one/,
    ),
  },
];
