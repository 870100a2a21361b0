/**
 * The bad-input cases: what a new user gets wrong, across every command, each with the exit
 * code and the message it must produce (see harness.ts for what else is checked). Grouped by
 * command; the ids are stable (docs/bad-inputs.md is generated from them).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTPUT_FOLDER_CASES } from './cases-output-folders.js';
import { STRICT_INPUT_CASES } from './cases-strict-inputs.js';
import type { BadInputCase, Fixture } from './harness.js';

type Expect = BadInputCase['expect'];
const usage = (message: RegExp): Expect => ({ code: 2, message });
const fails = (message: RegExp, names?: (f: Fixture) => string[]): Expect => ({
  code: 1,
  message,
  ...(names ? { names } : {}),
});
const ok = (message: RegExp): Expect => ({ code: 0, message });

const seed = (id: string, query = 'lighthouse') =>
  JSON.stringify({
    id,
    query,
    instruction: { text: 'I am interested in the coastal tower and its keeper.' },
    positives: [{ docid: `p-${id}`, text: 'a coastal tower with a bright lamp tended by a keeper' }],
    instructionNegatives: [
      { docid: `n-${id}`, text: 'a porcelain figurine shaped like a lighthouse, a collectible' },
    ],
  });
export const seedsFile = (ids: string[], query?: string) => `${ids.map((i) => seed(i, query)).join('\n')}\n`;

const set = (name: string) =>
  JSON.stringify({
    name,
    corpus: [
      { docid: 'd1', title: 'bass', text: 'bass is a freshwater fish' },
      { docid: 'd2', title: 'bass', text: 'bass guitar is a string instrument' },
    ],
    queries: [
      { id: 'q1', query: 'bass', instructions: { og: 'fish or instrument', changed: 'only the instrument' } },
    ],
    qrels: { og: { q1: { d1: 1, d2: 1 } }, changed: { q1: { d1: 0, d2: 1 } } },
    candidates: { q1: ['d1', 'd2'] },
  });
export const validSet = set('tiny');

const QRELS = '1 0 a 1\n1 0 b 0\n2 0 c 1\n';
const RUN = '1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.7 t\n';

/** `dv eval run --benchmark B --model M` and the rest of the options. */
const evalRunArgv = (benchmark: string, model: string, ...rest: string[]) => [
  'eval',
  'run',
  '--benchmark',
  benchmark,
  '--model',
  model,
  ...rest,
];

/** `dv data fetch` of the loopback Hub's `org/set@main` into the case's cache. */
const hubFetchArgv = (f: Fixture) => [
  'data',
  'fetch',
  '--repo',
  'org/set',
  '--revision',
  'main',
  '--cache',
  join(f.dir, 'cache'),
];

/** `dv eval pmrr` over og / changed qrels and runs, and the rest of the options. */
const pmrrArgv = (
  qrelsOg: string,
  qrelsChanged: string,
  runOg: string,
  runChanged: string,
  ...rest: string[]
) => [
  'eval',
  'pmrr',
  '--qrels-og',
  qrelsOg,
  '--qrels-changed',
  qrelsChanged,
  '--run-og',
  runOg,
  '--run-changed',
  runChanged,
  ...rest,
];

/** `dv synth mix` from the shared synthesis output into the case's --out. */
const mixArgv = (f: Fixture, ...rest: string[]) => [
  'synth',
  'mix',
  '--from',
  f.shared.synth!,
  '--out',
  f.out,
  ...rest,
];

/** `dv train init --backbone mini-bert --tokenizer T --out O`. */
const trainInitArgv = (tokenizer: string, out: string, ...rest: string[]) => [
  'train',
  'init',
  '--backbone',
  'mini-bert',
  '--tokenizer',
  tokenizer,
  '--out',
  out,
  ...rest,
];

/** `dv synth` against the OpenAI-compatible endpoint `url` (model m, no judge), and the rest. */
const openaiSynthArgv = (url: string, ...rest: string[]) => [
  'synth',
  '--backend',
  'openai',
  '--base-url',
  url,
  '--model',
  'm',
  '--judge',
  'none',
  ...rest,
];

/** A case set-up that first runs `dv ARGV` in-process, quietly (an earlier run into the same --out). */
function runFirst(argv: (f: Fixture) => string[]): (f: Fixture) => Promise<void> {
  return async (f) => {
    const { runCommand } = await import('../cli-kit.js');
    const { rootCommand } = await import('../commands/root.js');
    const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
    await runCommand(rootCommand, argv(f), { stdout: quiet, stderr: quiet });
  };
}

/** `dv eval trec --qrels Q --run R` and the rest of the options. */
const trecArgv = (qrels: string, run: string, ...rest: string[]) => [
  'eval',
  'trec',
  '--qrels',
  qrels,
  '--run',
  run,
  ...rest,
];

/** A `dv eval trec` case over one bad run or qrels body. */
function trec(id: string, title: string, which: 'run' | 'qrels', body: string, expect: Expect): BadInputCase {
  return {
    id,
    group: 'eval trec',
    title,
    argv: (f) => {
      const q = f.file('qrels.txt', which === 'qrels' ? body : QRELS);
      const r = f.file('run.txt', which === 'run' ? body : RUN);
      return trecArgv(q, r);
    },
    expect: expect.code === 0 ? expect : { ...expect, names: (f) => [join(f.dir, 'in', `${which}.txt`)] },
  };
}

/** A `dv verdicts` case over one bad results.json, given twice; the message names the file. */
function verdictsFile(id: string, title: string, body: string, message: RegExp): BadInputCase {
  return {
    id,
    group: 'verdicts',
    title,
    argv: (f) => {
      const r = f.file('results.json', body);
      return ['verdicts', r, r];
    },
    expect: fails(message, (f) => [join(f.dir, 'in', 'results.json')]),
  };
}

/** A `dv validate --schema seed-example` case over one bad file. */
function validate(
  id: string,
  title: string,
  body: string | Buffer,
  message: RegExp,
  line?: number,
): BadInputCase {
  return {
    id,
    group: 'validate',
    title,
    argv: (f) => ['validate', '--schema', 'seed-example', f.file('seeds.jsonl', body)],
    expect: fails(message, (f) => [`${join(f.dir, 'in', 'seeds.jsonl')}${line ? `:${line}` : ''}`]),
  };
}

/** A `dv synth` (offline backend) case with extra options. */
function synthUsage(id: string, title: string, extra: string[], message: RegExp): BadInputCase {
  return {
    id,
    group: 'synth',
    title,
    argv: (f) => ['synth', '--seeds', f.shared.seeds!, '--out', f.out, ...extra],
    expect: usage(message),
  };
}

/** `dv eval run` on the shared valid set with extra options. */
function evalRun(
  id: string,
  title: string,
  extra: string[],
  expect: Expect,
  model = 'bm25',
  baseUrl?: (f: Fixture) => string,
): BadInputCase {
  return {
    id,
    group: 'eval run',
    title,
    ...(baseUrl
      ? {
          env: (f: Fixture) => ({ OPENAI_BASE_URL: baseUrl(f), OPENAI_API_KEY: 'sk-suite-0123456789abcdef' }),
        }
      : {}),
    argv: (f) => evalRunArgv('mini', model, '--set', f.shared.set!, '--out', f.out, ...extra),
    expect,
  };
}

/** `dv data build-mini` with options (into the case's --out). */
function buildMini(id: string, title: string, extra: string[], expect: Expect): BadInputCase {
  return {
    id,
    group: 'data build-mini',
    title,
    argv: (f) => ['data', 'build-mini', '--out', f.out, ...extra],
    expect,
  };
}

/** `dv synth` against a loopback endpoint (openai backend, no retries, no judge). */
function synthRemote(
  id: string,
  title: string,
  url: (f: Fixture) => string,
  seeds: (f: Fixture) => string,
  expect: Expect,
): BadInputCase {
  return {
    id,
    group: 'synth',
    title,
    argv: (f) => openaiSynthArgv(url(f), '--max-retries', '0', '--seeds', seeds(f), '--out', f.out),
    env: () => ({ OPENAI_API_KEY: 'sk-suite-0123456789abcdef' }),
    expect,
  };
}

export const CASES: BadInputCase[] = [
  // ---- the CLI itself
  {
    id: 'cli-unknown-command',
    group: 'dv',
    title: 'unknown command',
    argv: () => ['frobnicate'],
    expect: usage(/unknown command 'frobnicate'/),
  },
  {
    id: 'cli-version',
    group: 'dv',
    title: '--version prints the version',
    argv: () => ['--version'],
    expect: ok(/^dv \d+\.\d+\.\d+$/),
  },
  {
    id: 'cli-help-exit-codes',
    group: 'dv',
    title: '--help documents the exit codes',
    argv: () => ['--help'],
    expect: ok(/Exit codes: 0 ok; 1 failed/),
  },
  {
    id: 'cli-group-unknown-flag',
    group: 'data',
    title: 'unknown option on a command group',
    argv: () => ['data', '--bogus'],
    expect: usage(/dv data: unknown option '--bogus'; give a command/),
  },
  {
    id: 'cli-group-no-command',
    group: 'data',
    title: 'command group without a command',
    argv: () => ['data'],
    expect: usage(/dv data: give a command/),
  },
  {
    id: 'cli-unknown-option',
    group: 'validate',
    title: 'unknown option',
    argv: () => ['validate', '--nope'],
    expect: usage(/Unknown option '--nope'\./),
  },
  {
    id: 'cli-missing-value',
    group: 'synth',
    title: 'option without its value',
    argv: () => ['synth', '--limit'],
    expect: usage(/Option '--limit <value>' argument missing/),
  },
  {
    id: 'cli-unknown-subcommand',
    group: 'eval',
    title: 'unknown subcommand',
    argv: () => ['eval', 'score'],
    expect: usage(/unknown command 'eval score'/),
  },

  // ---- reproduce
  {
    id: 'reproduce-jobs-zero',
    group: 'reproduce',
    title: '--jobs 0: no stage could run',
    argv: (f) => ['reproduce', '--quick', '--jobs', '0', '--out', f.out],
    expect: usage(/--jobs takes a positive integer \(got '0'\)/),
  },
  {
    id: 'reproduce-jobs-word',
    group: 'reproduce',
    title: '--jobs that is not a number',
    argv: (f) => ['reproduce', '--quick', '--jobs', 'all', '--out', f.out],
    expect: usage(/--jobs takes a positive integer \(got 'all'\)/),
  },
  // ---- verdicts
  {
    id: 'verdicts-one-run',
    group: 'verdicts',
    title: 'one run: nothing to compare',
    argv: (f) => ['verdicts', f.dir],
    expect: usage(/give at least two run folders/),
  },
  {
    id: 'verdicts-not-a-run',
    group: 'verdicts',
    title: 'a folder that is no finished reproduce run',
    argv: (f) => ['verdicts', f.dir, f.dir],
    expect: fails(
      /stages\/report\/results\.json: no stages\/report\/results\.json: not a finished reproduce run/,
    ),
  },
  verdictsFile(
    'verdicts-bad-json',
    'a results.json that is not JSON',
    '{"profile": "mini",\n',
    /results\.json: not valid JSON/,
  ),
  verdictsFile(
    'verdicts-other-json',
    'a JSON file that is not a results.json',
    '{"profile": "mini", "variant": "full"}\n',
    /results\.json: not a reproduce results\.json: findings: /,
  ),

  // ---- validate
  validate(
    'validate-bad-json',
    'malformed JSON on line 2',
    `${seed('a')}\n{"id": "b",\n`,
    /:2: invalid JSON/,
    2,
  ),
  validate(
    'validate-schema',
    'schema violation on line 2',
    `${seed('a')}\n{"id":"c","query":"q","instruction":{"text":"x"},"positives":[]}\n`,
    /:2: positives: a seed example needs at least one positive/,
    2,
  ),
  validate(
    'validate-duplicate-id',
    'duplicate id',
    `${seed('a')}\n${seed('a')}\n`,
    /:2: duplicate id "a" \(first seen on line 1\)/,
    2,
  ),
  validate('validate-not-object', 'a line that is not an object', `${seed('a')}\n[1,2]\n`, /:2: /, 2),
  validate('validate-truncated', 'last line cut off mid-record', `${seed('a')}\n{"id":"b","que`, /:2: /, 2),
  validate('validate-binary', 'binary garbage', Buffer.from([0, 1, 2, 255, 254, 10]), /:1: /, 1),
  validate(
    'validate-wrong-type',
    'query is a number',
    `{"id":"a","query":5,"instruction":{"text":"x"},"positives":[{"docid":"d","text":"t"}]}\n`,
    /:1: query: /,
    1,
  ),
  {
    id: 'validate-missing-file',
    group: 'validate',
    title: 'file does not exist',
    argv: (f) => ['validate', '--schema', 'seed-example', join(f.dir, 'in', 'nope.jsonl')],
    expect: fails(/nope\.jsonl/, (f) => [join(f.dir, 'in', 'nope.jsonl')]),
  },
  {
    id: 'validate-folder',
    group: 'validate',
    title: 'a folder instead of a file',
    argv: (f) => ['validate', '--schema', 'seed-example', join(f.dir, 'in')],
    expect: fails(/is a folder|EISDIR/, (f) => [join(f.dir, 'in')]),
  },
  {
    id: 'validate-unknown-schema',
    group: 'validate',
    title: 'unknown schema',
    argv: () => ['validate', '--schema', 'nope', 'x'],
    expect: usage(/unknown schema 'nope'; one of: /),
  },
  {
    id: 'validate-no-file',
    group: 'validate',
    title: 'no FILE',
    argv: () => ['validate', '--schema', 'seed-example'],
    expect: usage(/give at least one FILE/),
  },
  {
    id: 'validate-gzip-corrupt',
    group: 'validate',
    title: 'corrupt .jsonl.gz',
    argv: (f) => [
      'validate',
      '--schema',
      'seed-example',
      f.file('s.jsonl.gz', Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3])),
    ],
    expect: fails(/s\.jsonl\.gz/),
  },

  // ---- eval trec
  trec(
    'trec-run-5-columns',
    'run line with 5 columns',
    'run',
    '1 Q0 a 1 0.5\n',
    fails(/run\.txt:1: run line needs 6 columns/),
  ),
  trec(
    'trec-run-7-columns',
    'run line with 7 columns (trec_eval reads it: accepted)',
    'run',
    '1 Q0 a 1 0.9 t extra\n2 Q0 c 1 0.7 t\n',
    ok(/^ndcg_cut_10\s+\tall\t/m), // trec_eval order: map, recip_rank, then ndcg_cut
  ),
  trec(
    'trec-score-text',
    'non-numeric score',
    'run',
    '1 Q0 a 1 high t\n',
    fails(/run\.txt:1: score must be a number, found "high"/),
  ),
  trec(
    'trec-score-nan',
    'NaN score',
    'run',
    '1 Q0 a 1 nan t\n',
    fails(/run\.txt:1: score is NaN, which has no rank order/),
  ),
  trec(
    'trec-score-junk',
    'score with trailing junk',
    'run',
    '1 Q0 a 1 0.5abc t\n',
    fails(/run\.txt:1: .*atof would read only its leading digits/),
  ),
  trec(
    'trec-score-inf',
    'inf / -inf scores (trec_eval reads them: accepted)',
    'run',
    '1 Q0 a 1 inf t\n1 Q0 b 2 -inf t\n2 Q0 c 1 0.7 t\n',
    ok(/^ndcg_cut_10\s+\tall\t1\.0000$/m),
  ),
  trec(
    'trec-run-blank-line',
    'blank line in a run (trec_eval refuses it too)',
    'run',
    '1 Q0 a 1 0.9 t\n\n2 Q0 c 1 0.7 t\n',
    fails(/run\.txt:2: blank line/),
  ),
  trec(
    'trec-run-duplicate',
    'doc twice in a topic',
    'run',
    '1 Q0 a 1 0.9 t\n1 Q0 a 2 0.8 t\n',
    fails(/run\.txt:2: doc a appears twice in topic 1/),
  ),
  trec('trec-run-empty', 'empty run', 'run', '', fails(/run\.txt: run file is empty/)),
  trec(
    'trec-qrels-3-columns',
    'qrels line with 3 columns',
    'qrels',
    '1 0 a\n',
    fails(/qrels\.txt:1: qrels line needs 4 columns/),
  ),
  trec(
    'trec-qrels-grade-text',
    'grade is not a number',
    'qrels',
    '1 0 a x\n',
    fails(/qrels\.txt:1: grade must be an integer/),
  ),
  trec(
    'trec-qrels-grade-fraction',
    'fractional grade',
    'qrels',
    '1 0 a 1.5\n',
    fails(/qrels\.txt:1: grade must be a whole number.*atol would silently truncate it to 1/),
  ),
  trec(
    'trec-qrels-grade-1.0',
    'grade written 1.0 (trec_eval reads it: accepted)',
    'qrels',
    '1 0 a 1.0\n2 0 c 1\n',
    ok(/^ndcg_cut_10\s+\tall\t/m), // trec_eval order: map, recip_rank, then ndcg_cut
  ),
  trec(
    'trec-qrels-duplicate',
    'doc judged twice',
    'qrels',
    '1 0 a 1\n1 0 a 0\n',
    fails(/qrels\.txt:2: doc a judged twice for topic 1/),
  ),
  trec('trec-qrels-empty', 'empty qrels', 'qrels', '', fails(/qrels\.txt: qrels file is empty/)),
  trec(
    'trec-no-judged-topic',
    'no topic of the run is judged',
    'qrels',
    '9 0 a 1\n',
    fails(/no topic of the run is judged/),
  ),
  {
    id: 'trec-unknown-measure',
    group: 'eval trec',
    title: 'unknown measure',
    argv: (f) => trecArgv(f.file('q', QRELS), f.file('r', RUN), '--measures', 'bogus.5'),
    expect: usage(/bogus/),
  },
  {
    id: 'trec-missing-run-flag',
    group: 'eval trec',
    title: '--run missing',
    argv: (f) => ['eval', 'trec', '--qrels', f.file('q', QRELS)],
    expect: usage(/--run is required/),
  },
  {
    id: 'trec-missing-file',
    group: 'eval trec',
    title: 'qrels file does not exist',
    argv: (f) => trecArgv(join(f.dir, 'none.qrels'), f.file('r', RUN)),
    expect: fails(/none\.qrels/, (f) => [join(f.dir, 'none.qrels')]),
  },

  // ---- eval pmrr
  {
    id: 'pmrr-tie-break',
    group: 'eval pmrr',
    title: 'unknown --tie-break',
    argv: (f) =>
      pmrrArgv(
        f.file('q', QRELS),
        f.file('q', QRELS),
        f.file('r', RUN),
        f.file('r', RUN),
        '--tie-break',
        'random',
      ),
    expect: usage(/--tie-break must be one of docid-desc, insertion, got 'random'/),
  },
  {
    id: 'pmrr-no-changes',
    group: 'eval pmrr',
    title: 'og and changed qrels are the same',
    argv: (f) => pmrrArgv(f.file('q', QRELS), f.file('q2', QRELS), f.file('r', RUN), f.file('r', RUN)),
    expect: fails(/no doc changes grade between the og and changed qrels/),
  },
  {
    id: 'pmrr-missing-topic',
    group: 'eval pmrr',
    title: 'a changed topic missing from the og run',
    argv: (f) =>
      pmrrArgv(
        f.file('q', QRELS),
        f.file('q2', '1 0 a 0\n1 0 b 1\n2 0 c 1\n'),
        f.file('r', '2 Q0 c 1 0.7 t\n'),
        f.file('r2', RUN),
      ),
    expect: fails(/topic 1 has changed docs but is missing from the og run/, (f) => [join(f.dir, 'in', 'r')]),
  },
  {
    id: 'pmrr-bad-run',
    group: 'eval pmrr',
    title: 'bad line in a run',
    argv: (f) =>
      pmrrArgv(f.file('q', QRELS), f.file('q2', QRELS), f.file('r', '1 Q0 a x 0.5\n'), f.file('r2', RUN)),
    expect: fails(/r:1: run line needs 6 columns/),
  },
  {
    id: 'pmrr-missing-flag',
    group: 'eval pmrr',
    title: '--run-changed missing',
    argv: (f) => [
      'eval',
      'pmrr',
      '--qrels-og',
      f.file('q', QRELS),
      '--qrels-changed',
      f.file('q2', QRELS),
      '--run-og',
      f.file('r', RUN),
    ],
    expect: usage(/--run-changed is required/),
  },

  // ---- eval run
  {
    id: 'run-unknown-benchmark',
    group: 'eval run',
    title: 'unknown benchmark',
    argv: (f) => ['eval', 'run', '--benchmark', 'nope', '--model', 'bm25', '--set', f.shared.set!],
    expect: usage(/unknown benchmark 'nope'; registered: followir/),
  },
  evalRun('run-unknown-model', 'unknown model spec', [], usage(/unknown model "magic"/), 'magic'),
  evalRun(
    'run-top-k-zero',
    '--top-k 0',
    ['--top-k', '0'],
    usage(/--top-k must be a positive integer, got '0'/),
  ),
  evalRun(
    'run-top-k-negative',
    '--top-k -5',
    ['--top-k', '-5'],
    usage(/--top-k must be a positive integer, got '-5'/),
  ),
  evalRun(
    'run-top-k-fraction',
    '--top-k 2.5',
    ['--top-k', '2.5'],
    usage(/--top-k must be a positive integer, got '2\.5'/),
  ),
  evalRun(
    'run-top-k-text',
    '--top-k ten',
    ['--top-k', 'ten'],
    usage(/--top-k must be a positive integer, got 'ten'/),
  ),
  evalRun(
    'run-variant',
    'unknown --infosearch-variant',
    ['--infosearch-variant', 'v2'],
    usage(/--infosearch-variant must be one of paper, code, got 'v2'/),
  ),
  {
    id: 'run-set-traversal',
    group: 'eval run',
    title: 'set name "../../../../ESCAPED" (path traversal)',
    argv: (f) =>
      evalRunArgv('mini', 'bm25', '--set', f.file('evil.json', set('../../../../ESCAPED')), '--out', f.out),
    expect: fails(
      /name "\.\.\/\.\.\/\.\.\/\.\.\/ESCAPED" contains '\/' where a single name is meant/,
      (f) => [join(f.dir, 'in', 'evil.json')],
    ),
  },
  {
    id: 'run-set-dotdot',
    group: 'eval run',
    title: 'set name ".."',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.file('evil.json', set('..')), '--out', f.out),
    expect: fails(/name "\.\." has a '\.\.' segment/),
  },
  {
    id: 'run-set-absolute',
    group: 'eval run',
    title: 'set name "/tmp/x" (absolute)',
    argv: (f) =>
      evalRunArgv('mini', 'bm25', '--set', f.file('evil.json', set('/tmp/dv-ESCAPED')), '--out', f.out),
    expect: fails(/is an absolute path/),
  },
  {
    id: 'run-set-nul',
    group: 'eval run',
    title: 'set name with a NUL byte',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.file('evil.json', set('a\u0000b')), '--out', f.out),
    expect: fails(/contains a NUL byte/),
  },
  {
    id: 'run-set-missing',
    group: 'eval run',
    title: 'set file does not exist',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', join(f.dir, 'none.json'), '--out', f.out),
    expect: fails(/none\.json: set file not found/),
  },
  {
    id: 'run-set-not-json',
    group: 'eval run',
    title: 'set file is not JSON',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.file('s.json', '{"name": '), '--out', f.out),
    expect: fails(/s\.json: not a JSON file/),
  },
  {
    id: 'run-set-schema',
    group: 'eval run',
    title: 'set without queries',
    argv: (f) =>
      evalRunArgv(
        'mini',
        'bm25',
        '--set',
        f.file('s.json', '{"name":"x","corpus":[],"qrels":{}}'),
        '--out',
        f.out,
      ),
    expect: fails(/s\.json: queries: /),
  },
  {
    id: 'run-set-duplicate-doc',
    group: 'eval run',
    title: 'doc listed twice in the corpus',
    argv: (f) =>
      evalRunArgv(
        'mini',
        'bm25',
        '--set',
        f.file('s.json', validSet.replace('{ "docid"', '{ "docid"').replace('"docid":"d2"', '"docid":"d1"')),
        '--out',
        f.out,
      ),
    expect: fails(/s\.json: corpus: doc d1 listed twice/),
  },
  {
    id: 'run-set-unregistered',
    group: 'eval run',
    title: 'FollowIR set that is not a registered task',
    argv: (f) => evalRunArgv('followir', 'bm25', '--set', f.shared.set!, '--out', f.out),
    expect: fails(/set 'tiny' is not a registered followir task/),
  },
  {
    id: 'run-set-and-data',
    group: 'eval run',
    title: '--set and --data together',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--data', f.dir),
    expect: usage(/give --data or --set, not both/),
  },
  {
    id: 'run-data-missing',
    group: 'eval run',
    title: '--data folder does not exist',
    argv: (f) => evalRunArgv('followir', 'bm25', '--data', join(f.dir, 'nope'), '--out', f.out),
    expect: fails(/nope: folder not found/),
  },
  {
    id: 'run-data-unknown-folder',
    group: 'eval run',
    title: 'FollowIR --data subfolder that is no registered set',
    setup: (f) => {
      mkdirSync(join(f.dir, 'in', 'data', 'my-robust'), { recursive: true });
    },
    argv: (f) => evalRunArgv('followir', 'bm25', '--data', join(f.dir, 'in', 'data'), '--out', f.out),
    expect: fails(/my-robust: set 'my-robust' is not a registered followir task/),
  },
  {
    id: 'run-mini-no-data',
    group: 'eval run',
    title: 'mini benchmark without --data',
    argv: (f) => ['eval', 'run', '--benchmark', 'mini', '--model', 'bm25', '--out', f.out],
    expect: usage(/mini-followir needs --data DIR/),
  },
  {
    id: 'run-mini-not-world',
    group: 'eval run',
    title: '--data that is not a mini world',
    argv: (f) => evalRunArgv('mini', 'bm25', '--data', join(f.dir, 'in'), '--out', f.out),
    expect: fails(/missing file \(is this a mini world folder/),
  },
  {
    id: 'run-onnx-missing',
    group: 'eval run',
    title: 'onnx: folder without a model',
    argv: (f) => evalRunArgv('mini', `onnx:${join(f.dir, 'in')}`, '--set', f.shared.set!, '--out', f.out),
    expect: fails(/no model\.onnx \(or onnx\/model\.onnx\) in the model folder/),
  },
  {
    id: 'run-onnx-corrupt',
    group: 'eval run',
    title: 'onnx: corrupt model.onnx',
    setup: (f) => {
      f.file('m/model.onnx', 'not a protobuf');
      f.file('m/tokenizer.json', '{}');
    },
    argv: (f) =>
      evalRunArgv('mini', `onnx:${join(f.dir, 'in', 'm')}`, '--set', f.shared.set!, '--out', f.out),
    expect: fails(/cannot load model 'onnx:|tokenizer|model\.onnx/),
  },
  evalRun(
    'run-openai-closed-port',
    'openai: embeddings endpoint not listening',
    [],
    fails(/embeddings request to http:\/\/127\.0\.0\.1:\d+\/v1\/? failed/),
    'openai:m',
    (f) => f.urls.closed!,
  ),
  evalRun(
    'run-openai-401',
    'openai: endpoint refuses the key (401)',
    [],
    fails(/embeddings request to .*s401.* failed: 401/),
    'openai:m',
    (f) => f.urls.s401!,
  ),
  evalRun(
    'run-openai-500',
    'openai: endpoint answers 500',
    [],
    fails(/embeddings request to .*s500.* failed: 500/),
    'openai:m',
    (f) => f.urls.s500!,
  ),
  evalRun(
    'run-openai-nonjson',
    'openai: endpoint answers HTML',
    [],
    fails(/embeddings endpoint .*nonjson.* answered without a "data" array/),
    'openai:m',
    (f) => f.urls.nonjson!,
  ),
  {
    id: 'run-out-is-file',
    group: 'eval run',
    title: '--out is a file',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', f.file('out-file', 'x')),
    expect: fails(/out-file: --out is a file, not a folder/),
  },
  {
    id: 'run-out-proc',
    group: 'eval run',
    title: '--out under /proc',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', '/proc/dv-x'),
    expect: fails(/--out is on a kernel file system \(proc\)/),
  },
  {
    id: 'run-out-sys',
    group: 'eval run',
    title: '--out under /sys',
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', '/sys/dv-x'),
    expect: fails(/--out is on a kernel file system \(sys\)/),
  },
  {
    id: 'run-out-under-file',
    group: 'eval run',
    title: '--out inside a file (not a folder)',
    argv: (f) =>
      evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', join(f.file('plain', 'x'), 'out')),
    expect: fails(/plain\/out: a path component is a file, not a folder/),
  },
  {
    id: 'run-out-other-run',
    group: 'eval run',
    title: '--out holds another run (other model)',
    setup: runFirst((f) =>
      evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', f.out, '--top-k', '5'),
    ),
    argv: (f) => evalRunArgv('mini', 'bm25', '--set', f.shared.set!, '--out', f.out),
    expect: fails(
      /--out already holds the outputs of another eval-run run \(other settings\); choose another --out, or pass --force/,
    ),
  },

  // ---- data fetch
  {
    id: 'fetch-unknown',
    group: 'data fetch',
    title: 'unknown dataset',
    argv: () => ['data', 'fetch', 'robust05'],
    expect: usage(/unknown dataset 'robust05'; one of: followir-robust04/),
  },
  {
    id: 'fetch-both',
    group: 'data fetch',
    title: 'NAME and --repo',
    argv: () => ['data', 'fetch', 'followir-news21', '--repo', 'a/b'],
    expect: usage(/give a registered NAME or --repo \(not both\)/),
  },
  {
    id: 'fetch-repo-no-revision',
    group: 'data fetch',
    title: '--repo without --revision',
    argv: () => ['data', 'fetch', '--repo', 'a/b'],
    expect: usage(/--repo needs --revision \(a commit\)/),
  },
  {
    id: 'fetch-repo-traversal',
    group: 'data fetch',
    title: '--repo ../../x',
    argv: () => ['data', 'fetch', '--repo', '../../x', '--revision', 'main'],
    expect: usage(/--repo must be OWNER\/NAME, got '\.\.\/\.\.\/x'/),
  },
  {
    id: 'fetch-revision-traversal',
    group: 'data fetch',
    title: '--revision ../../x',
    argv: () => ['data', 'fetch', '--repo', 'a/b', '--revision', '../../x'],
    expect: usage(/--revision "\.\.\/\.\.\/x" has a '\.\.' segment/),
  },
  {
    id: 'fetch-unpinned',
    group: 'data fetch',
    title: 'registered entry with no pinned revision',
    argv: (f) => ['data', 'fetch', 'mair-queries', '--cache', join(f.dir, 'cache')],
    expect: fails(/has no pinned revision: pass one explicitly/),
  },
  {
    id: 'fetch-listing-traversal',
    group: 'data fetch',
    title: 'Hub file list holds ../../ESCAPED-hub',
    argv: (f) => hubFetchArgv(f),
    env: (f) => ({ HF_ENDPOINT: f.urls.hubEvil! }),
    allowOutside: /\/cache\//,
    expect: fails(
      /file path "\.\.\/\.\.\/ESCAPED-hub" from the Hub's file list of org\/set@e5ca9ed0+1 has a '\.\.' segment/,
    ),
  },
  {
    id: 'fetch-401',
    group: 'data fetch',
    title: 'Hub answers 401',
    argv: (f) => hubFetchArgv(f),
    env: (f) => ({ HF_ENDPOINT: f.urls.hub401! }),
    expect: fails(/HTTP 401 .*set HF_TOKEN/),
  },
  {
    id: 'fetch-500',
    group: 'data fetch',
    title: 'Hub answers 500',
    argv: (f) => hubFetchArgv(f),
    env: (f) => ({ HF_ENDPOINT: f.urls.hub500! }),
    expect: fails(/HTTP 500/),
  },
  {
    id: 'fetch-nonjson',
    group: 'data fetch',
    title: 'Hub answers HTML',
    argv: (f) => hubFetchArgv(f),
    env: (f) => ({ HF_ENDPOINT: f.urls.hubNonJson! }),
    expect: fails(/answered 200 with a body that is not JSON/),
  },
  {
    id: 'fetch-closed-port',
    group: 'data fetch',
    title: 'Hub not listening',
    argv: (f) => hubFetchArgv(f),
    env: (f) => ({ HF_ENDPOINT: f.urls.closedHub! }),
    expect: fails(/cannot reach http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/),
  },
  {
    id: 'fetch-offline-empty',
    group: 'data fetch',
    title: '--offline with an empty cache',
    argv: (f) => ['data', 'fetch', 'followir-news21', '--offline', '--cache', join(f.dir, 'cache')],
    expect: fails(
      /offline: jhu-clsp\/news21-instructions@e0144086b45fe31ac125e9ac1a83b6a409bb6ca6 is not in the cache/,
    ),
  },

  // ---- data build-mini
  {
    id: 'mini-no-out',
    group: 'data build-mini',
    title: 'no --out',
    argv: () => ['data', 'build-mini'],
    expect: usage(/--out is required/),
  },
  buildMini(
    'mini-seed-text',
    '--seed abc',
    ['--seed', 'abc'],
    usage(/--seed must be a non-negative integer, got 'abc'/),
  ),
  buildMini(
    'mini-test-lemmas-zero',
    '--test-lemmas 0',
    ['--test-lemmas', '0'],
    usage(/--test-lemmas must be a positive integer, got '0'/),
  ),
  buildMini(
    'mini-test-lemmas-fraction',
    '--test-lemmas 2.5',
    ['--test-lemmas', '2.5'],
    usage(/--test-lemmas must be a positive integer, got '2\.5'/),
  ),
  buildMini(
    'mini-dominant-share',
    '--dominant-share 2',
    ['--dominant-share', '2'],
    usage(/--dominant-share must be a number from 0 to 1, got '2'/),
  ),
  buildMini(
    'mini-hard-negatives-negative',
    '--hard-negatives -1',
    ['--hard-negatives', '-1'],
    usage(/--hard-negatives must be a non-negative integer, got '-1'/),
  ),
  buildMini(
    'mini-test-lemmas-huge',
    '--test-lemmas 20000 (more than WordNet offers)',
    ['--test-lemmas', '20000', '--dev-lemmas', '5'],
    usage(/only \d+ ambiguous lemmas for 20000 test \+ 5 dev; lower --test-lemmas/),
  ),
  {
    id: 'mini-out-file',
    group: 'data build-mini',
    title: '--out is a file',
    argv: (f) => ['data', 'build-mini', '--out', f.file('f', 'x')],
    expect: fails(/--out is a file, not a folder/),
  },
  {
    id: 'mini-out-proc',
    group: 'data build-mini',
    title: '--out /proc/x (used to spin forever)',
    argv: () => ['data', 'build-mini', '--out', '/proc/dv-x'],
    expect: fails(/--out is on a kernel file system \(proc\)/),
  },
  {
    id: 'mini-wordnet-empty',
    group: 'data build-mini',
    title: '--wordnet-dir without WordNet files',
    argv: (f) => ['data', 'build-mini', '--out', f.out, '--wordnet-dir', join(f.dir, 'in')],
    expect: fails(/in/),
  },
  {
    id: 'mini-other-options',
    group: 'data build-mini',
    title: 'other options into an existing build, no --force',
    argv: (f) => ['data', 'build-mini', '--out', f.shared.world!, '--seed', '99'],
    expect: fails(/--out already holds the outputs of another mini-world run \(other settings\)/),
  },

  // ---- data check
  {
    id: 'check-unknown-layout',
    group: 'data check',
    title: 'unknown layout',
    argv: () => ['data', 'check', '--layout', 'csv', 'x'],
    expect: usage(/unknown layout 'csv'; one of: followir-v1/),
  },
  {
    id: 'check-no-path',
    group: 'data check',
    title: 'no PATH',
    argv: () => ['data', 'check', '--layout', 'beir'],
    expect: usage(/give the PATH to check/),
  },
  {
    id: 'check-missing-folder',
    group: 'data check',
    title: 'folder does not exist',
    argv: (f) => ['data', 'check', '--layout', 'followir-v1', join(f.dir, 'nope')],
    expect: fails(/nope/),
  },
  {
    id: 'check-empty-folder',
    group: 'data check',
    title: 'FollowIR folder without its files',
    argv: (f) => ['data', 'check', '--layout', 'followir-v1', join(f.dir, 'in')],
    expect: fails(/in/),
  },
  {
    id: 'check-bad-qrels',
    group: 'data check',
    title: 'BEIR folder with a qrels row naming an unknown doc',
    setup: (f) => {
      f.file('beir/corpus.jsonl', '{"_id":"d1","text":"x"}\n');
      f.file('beir/queries.jsonl', '{"_id":"q1","text":"y"}\n');
      f.file('beir/qrels/test.tsv', 'query-id\tcorpus-id\tscore\nq1\td9\t1\n');
    },
    argv: (f) => ['data', 'check', '--layout', 'beir', join(f.dir, 'in', 'beir')],
    expect: fails(/d9/),
  },
  {
    id: 'check-promptriever-not-parquet',
    group: 'data check',
    title: 'promptriever file that is not Parquet',
    argv: (f) => ['data', 'check', '--layout', 'promptriever', f.file('p.parquet', 'hello')],
    expect: fails(/p\.parquet/),
  },

  // ---- synth
  synthUsage(
    'synth-backend',
    'unknown --backend',
    ['--backend', 'magic'],
    /--backend must be one of offline, openai, batch-export, batch-import, got 'magic'/,
  ),
  synthUsage(
    'synth-limit-negative',
    '--limit -5',
    ['--limit', '-5'],
    /--limit must be a positive integer, got '-5'/,
  ),
  synthUsage(
    'synth-limit-zero',
    '--limit 0',
    ['--limit', '0'],
    /--limit must be a positive integer, got '0'/,
  ),
  synthUsage(
    'synth-limit-fraction',
    '--limit 2.5',
    ['--limit', '2.5'],
    /--limit must be a positive integer, got '2\.5'/,
  ),
  synthUsage(
    'synth-concurrency-zero',
    '--concurrency 0',
    ['--concurrency', '0'],
    /--concurrency must be a positive integer, got '0'/,
  ),
  synthUsage(
    'synth-temperature',
    '--temperature 5',
    ['--temperature', '5'],
    /--temperature must be a number from 0 to 2, got '5'/,
  ),
  synthUsage(
    'synth-judge',
    'unknown --judge',
    ['--judge', 'oracle'],
    /--judge must be one of lexical, lexical-text, lexical-metadata, llm, none, got 'oracle'/,
  ),
  synthUsage(
    'synth-judge-threshold',
    '--judge-threshold above the judge maximum',
    ['--judge-threshold', '5'],
    /--judge-threshold 5 is above the highest score the lexical judge gives \(2\)/,
  ),
  synthUsage(
    'synth-llm-judge-no-url',
    '--judge llm without --base-url',
    ['--judge', 'llm'],
    /--base-url is required for the openai backend and the llm judge/,
  ),
  synthUsage('synth-shard', '--shard 3/2', ['--shard', '3/2'], /--shard must be i\/n with 0 <= i < n/),
  synthUsage(
    'synth-preset',
    'unknown --preset',
    ['--preset', 'huge'],
    /--preset must be one of paper, mini, got 'huge'|--preset must be one of mini, paper, got 'huge'/,
  ),
  synthUsage(
    'synth-cost-cap',
    '--cost-cap -1',
    ['--cost-cap', '-1'],
    /--cost-cap must be a positive number, got '-1'/,
  ),
  synthUsage(
    'synth-max-retries',
    '--max-retries 1.5',
    ['--max-retries', '1.5'],
    /--max-retries must be a non-negative integer, got '1\.5'/,
  ),
  synthUsage(
    'synth-base-url',
    '--base-url that is not a URL',
    ['--backend', 'openai', '--base-url', 'localhost:8000'],
    /--base-url must be an http\(s\) URL such as http:\/\/127\.0\.0\.1:8000\/v1, got 'localhost:8000'/,
  ),
  synthUsage(
    'synth-batch-import-no-output',
    'batch-import without --batch-output',
    ['--backend', 'batch-import'],
    /--batch-output is required for batch-import/,
  ),
  {
    id: 'synth-no-seeds',
    group: 'synth',
    title: '--seeds missing',
    argv: (f) => ['synth', '--out', f.out],
    expect: usage(/--seeds is required/),
  },
  {
    id: 'synth-seeds-missing-file',
    group: 'synth',
    title: 'seed file does not exist',
    argv: (f) => ['synth', '--seeds', join(f.dir, 'none.jsonl'), '--out', f.out],
    expect: fails(/none\.jsonl: seed file not found/),
  },
  {
    id: 'synth-seeds-empty',
    group: 'synth',
    title: 'empty seed file (used to exit 0)',
    argv: (f) => ['synth', '--seeds', f.file('s.jsonl', ''), '--out', f.out],
    expect: fails(/s\.jsonl: the seed file holds no seeds/),
  },
  {
    id: 'synth-seeds-malformed',
    group: 'synth',
    title: 'malformed seed line',
    argv: (f) => ['synth', '--seeds', f.file('s.jsonl', `${seed('a')}\n{oops\n`), '--out', f.out],
    expect: fails(/s\.jsonl:2: invalid JSON/),
  },
  {
    id: 'synth-seeds-duplicate',
    group: 'synth',
    title: 'duplicate seed id',
    argv: (f) => ['synth', '--seeds', f.file('s.jsonl', `${seed('a')}\n${seed('a')}\n`), '--out', f.out],
    expect: fails(/s\.jsonl:2: duplicate id "a"/),
  },
  {
    id: 'synth-seeds-schema',
    group: 'synth',
    title: 'seed without positives',
    argv: (f) => [
      'synth',
      '--seeds',
      f.file('s.jsonl', '{"id":"a","query":"q","instruction":{"text":"x"},"positives":[]}\n'),
      '--out',
      f.out,
    ],
    expect: fails(/s\.jsonl:1: positives: /),
  },
  synthRemote(
    'synth-closed-port',
    'endpoint not listening (40 seeds: used to take 53 s and exit 0)',
    (f) => f.urls.closed!,
    (f) => f.file('s.jsonl', seedsFile(Array.from({ length: 40 }, (_, i) => `s${i}`))),
    fails(
      /stopped: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1: 3 connection failures in a row .*40 seeds are pending \(nothing recorded for them\)/,
    ),
  ),
  synthRemote(
    'synth-401',
    'endpoint refuses the key (401)',
    (f) => f.urls.s401!,
    (f) => f.shared.seeds!,
    fails(/stopped: the endpoint refused the API key \(http-401\)/),
  ),
  synthRemote(
    'synth-all-500',
    'every request answers 500',
    (f) => f.urls.s500!,
    (f) => f.shared.seeds!,
    fails(/failed: all 4 seeds failed \(backend:http-500 4\).*--retry-failed/),
  ),
  synthRemote(
    'synth-nonjson',
    'endpoint answers HTML',
    (f) => f.urls.nonjson!,
    (f) => f.shared.seeds!,
    fails(/failed: all 4 seeds failed/),
  ),
  synthRemote(
    'synth-no-answer-tag',
    'replies without an answer tag',
    (f) => f.urls.chat!,
    (f) => f.file('s.jsonl', seedsFile(['a', 'b'], 'lighthouse [[fault:malformed*]]')),
    fails(/failed: all 2 seeds failed \(unparsable:/),
  ),
  synthRemote(
    'synth-partial',
    'some seeds fail (500), others succeed',
    (f) => f.urls.chat!,
    (f) => f.file('s.jsonl', `${seedsFile(['a', 'b'])}${seedsFile(['c', 'd'], 'lighthouse [[fault:500*]]')}`),
    { code: 3, message: /partial: 2 of 4 seeds failed \(backend:http-500 2\).*rerun with --retry-failed/ },
  ),
  {
    id: 'synth-cached-failures',
    group: 'synth',
    title: 'rerun reuses cached failures and says so',
    setup: runFirst((f) =>
      openaiSynthArgv(f.urls.s500!, '--max-retries', '0', '--seeds', f.shared.seeds!, '--out', f.out),
    ),
    argv: (f) =>
      openaiSynthArgv(f.urls.s500!, '--max-retries', '0', '--seeds', f.shared.seeds!, '--out', f.out),
    expect: fails(/note: 4 seeds reuse failed records of an earlier run .* pass --retry-failed/),
  },
  {
    id: 'synth-sigint',
    group: 'synth',
    title: 'SIGINT mid-run, then a rerun completes without duplicates',
    argv: (f) =>
      openaiSynthArgv(f.urls.chat!, '--seeds', f.shared.seeds40!, '--out', f.out, '--concurrency', '1'),
    spawned: async (f) => {
      const { spawnDv } = await import('./harness.js');
      const args = openaiSynthArgv(
        `${f.urls.chat}`,
        '--seeds',
        f.shared.seeds40!,
        '--out',
        f.out,
        '--concurrency',
        '1',
      );
      const env = { OPENAI_API_KEY: 'sk-suite-0123456789abcdef' };
      const first = await spawnDv(args, env, (child) => {
        const log = join(f.out, 'log.jsonl');
        const poll = setInterval(() => {
          if (existsSync(log)) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 10);
        child.on('close', () => clearInterval(poll));
      });
      const second = await spawnDv(args, env);
      const { readFileSync } = await import('node:fs');
      const keys = readFileSync(join(f.out, 'log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).key);
      const dup = keys.length - new Set(keys).size;
      return {
        code: first.code,
        stdout: '',
        stderr: `interrupted: exit ${first.code}; rerun exit ${second.code}: ${second.stdout.split('\n')[0]}; ${dup} duplicate keys\n${first.stderr}${second.stderr}`,
      };
    },
    expect: {
      code: 130,
      message:
        /interrupted: exit 130; rerun exit 0: synth: 40 seeds, 40 recorded, 0 pending; 0 duplicate keys/,
    },
  },

  // ---- synth mix / merge
  {
    id: 'mix-no-budget',
    group: 'synth mix',
    title: '--budget missing',
    argv: (f) => ['synth', 'mix', '--from', f.shared.synth!, '--out', f.out],
    expect: usage(/--budget is required/),
  },
  {
    id: 'mix-budget-zero',
    group: 'synth mix',
    title: '--budget 0',
    argv: (f) => ['synth', 'mix', '--from', f.shared.synth!, '--out', f.out, '--budget', '0'],
    expect: usage(/--budget must be a positive integer, got '0'/),
  },
  {
    id: 'mix-budget-fraction',
    group: 'synth mix',
    title: '--budget 2.5',
    argv: (f) => ['synth', 'mix', '--from', f.shared.synth!, '--out', f.out, '--budget', '2.5'],
    expect: usage(/--budget must be a positive integer, got '2\.5'/),
  },
  {
    id: 'mix-unknown-mix',
    group: 'synth mix',
    title: 'unknown --mixes entry',
    argv: (f) => mixArgv(f, '--budget', '4', '--mixes', 'ins-xx'),
    expect: usage(/unknown mix 'ins-xx'; one of ins-orig, ins-dv, all-orig, all-dv/),
  },
  {
    id: 'mix-unknown-format',
    group: 'synth mix',
    title: 'unknown --formats entry',
    argv: (f) => mixArgv(f, '--budget', '4', '--formats', 'csv'),
    expect: usage(/unknown format 'csv'/),
  },
  {
    id: 'mix-from-missing',
    group: 'synth mix',
    title: '--from folder without synth outputs',
    argv: (f) => ['synth', 'mix', '--from', join(f.dir, 'in'), '--out', f.out, '--budget', '4'],
    expect: fails(/not found \(run `dv synth` first\)/),
  },
  {
    id: 'mix-budget-too-big',
    group: 'synth mix',
    title: '--budget larger than the accepted examples',
    argv: (f) => mixArgv(f, '--budget', '100000', '--mixes', 'ins-orig'),
    expect: fails(/the matched mixes need N\/2 = 50000 accepted pairs.*lower the budget to at most 8/),
  },
  {
    id: 'mix-other-settings',
    group: 'synth mix',
    title: 'existing mix folder with other settings (used to keep stale mixes)',
    setup: runFirst((f) => mixArgv(f, '--budget', '2', '--mixes', 'ins-orig')),
    argv: (f) => mixArgv(f, '--budget', '2', '--mixes', 'ins-dv'),
    expect: fails(/--out already holds the outputs of another synth-mix run/),
  },
  {
    id: 'merge-no-shards',
    group: 'synth merge',
    title: 'no shard folders',
    argv: (f) => ['synth', 'merge', '--seeds', f.shared.seeds!, '--out', f.out],
    expect: usage(/give the shard folders to merge/),
  },
  {
    id: 'merge-missing-shard',
    group: 'synth merge',
    title: 'shard folder does not exist',
    argv: (f) => ['synth', 'merge', '--seeds', f.shared.seeds!, '--out', f.out, join(f.dir, 'shard-9')],
    expect: fails(/shard-9/),
  },
  {
    id: 'merge-no-seeds',
    group: 'synth merge',
    title: '--seeds missing',
    argv: (f) => ['synth', 'merge', '--out', f.out, 'x'],
    expect: usage(/--seeds is required/),
  },
  // dv train: vocabularies, backbones, training runs (issue 12 items 6 and 7, train side)
  {
    id: 'train-vocab-empty',
    group: 'train vocab',
    title: 'a text file with only blank lines',
    argv: (f) => ['train', 'vocab', '--out', f.out, f.file('empty.txt', '\n  \n')],
    expect: fails(/no text to learn a vocabulary from/, (f) => [join(f.dir, 'in', 'empty.txt')]),
  },
  {
    id: 'train-vocab-size-3',
    group: 'train vocab',
    title: '--vocab-size 3 (not above the 5 special tokens)',
    argv: (f) => [
      'train',
      'vocab',
      '--out',
      f.out,
      '--vocab-size',
      '3',
      f.file('t.txt', 'a bass is a fish\n'),
    ],
    expect: usage(/--vocab-size must exceed the 5 special tokens, got '3'/),
  },
  {
    id: 'train-vocab-size-fraction',
    group: 'train vocab',
    title: '--vocab-size 2.5',
    argv: (f) => ['train', 'vocab', '--out', f.out, '--vocab-size', '2.5', f.file('t.txt', 'a bass\n')],
    expect: usage(/--vocab-size must be a positive integer, got '2.5'/),
  },
  {
    id: 'train-vocab-no-files',
    group: 'train vocab',
    title: 'no text FILE',
    argv: (f) => ['train', 'vocab', '--out', f.out],
    expect: usage(/give at least one text FILE/),
  },
  {
    id: 'train-init-tokenizer-not-json',
    group: 'train init',
    title: 'tokenizer.json that is not JSON',
    argv: (f) => trainInitArgv(f.file('tokenizer.json', 'nope\n'), f.out),
    expect: fails(/not JSON, so not a tokenizer\.json/, (f) => [join(f.dir, 'in', 'tokenizer.json')]),
  },
  {
    id: 'train-init-tokenizer-wrong-shape',
    group: 'train init',
    title: 'tokenizer.json that is JSON of another shape',
    argv: (f) => trainInitArgv(f.file('tokenizer.json', '{"a": 1}\n'), f.out),
    expect: fails(/not a Hugging Face tokenizer\.json \(it has no "model" section\)/, (f) => [
      join(f.dir, 'in', 'tokenizer.json'),
    ]),
  },
  {
    id: 'train-init-tokenizer-missing',
    group: 'train init',
    title: 'tokenizer file that does not exist',
    argv: (f) => trainInitArgv(join(f.dir, 'in', 'absent.json'), f.out),
    expect: fails(/cannot read the tokenizer \(ENOENT\)/, (f) => [join(f.dir, 'in', 'absent.json')]),
  },
  {
    id: 'train-init-unknown-backbone',
    group: 'train init',
    title: 'unknown --backbone',
    argv: (f) => ['train', 'init', '--backbone', 'mini-xl', '--tokenizer', 'x.json', '--out', f.out],
    expect: usage(/unknown backbone 'mini-xl'/),
  },
  {
    id: 'train-run-mix-missing',
    group: 'train run',
    title: '--mix names a file that does not exist',
    argv: (f) => [
      'train',
      'run',
      '--mix',
      join(f.dir, 'in', 'nothere.jsonl'),
      '--init',
      f.dir,
      '--out',
      f.out,
    ],
    expect: usage(/nothere\.jsonl does not exist/),
  },
  {
    id: 'train-run-negative-temperature',
    group: 'train run',
    title: '--temperature -1',
    argv: (f) => [
      'train',
      'run',
      '--mix',
      f.file('mix.jsonl', '{}\n'),
      '--init',
      f.dir,
      '--out',
      f.out,
      '--temperature',
      '-1',
    ],
    expect: usage(/--temperature must be a positive number, got '-1'/),
  },
  {
    id: 'train-run-config-not-json',
    group: 'train run',
    title: '--config FILE with broken JSON',
    argv: (f) => [
      'train',
      'run',
      '--config',
      f.file('config.json', '{"loss":'),
      '--mix',
      f.file('mix.jsonl', '{}\n'),
      '--out',
      f.out,
    ],
    expect: usage(/config\.json/),
  },
  // dv train onnx: the ONNX graphs of an existing folder (issue 16, int8)
  {
    id: 'train-onnx-no-folder',
    group: 'train onnx',
    title: '--model folder that does not exist',
    argv: (f) => ['train', 'onnx', '--model', join(f.dir, 'no-model')],
    expect: fails(/no config\.json/, (f) => [join(f.dir, 'no-model', 'config.json')]),
  },
  {
    id: 'train-onnx-config-not-json',
    group: 'train onnx',
    title: 'config.json that is not JSON',
    setup: (f) => {
      f.file('m/config.json', '{"model_type":');
      f.file('m/model.safetensors', 'x');
    },
    argv: (f) => ['train', 'onnx', '--model', join(f.dir, 'in', 'm')],
    expect: fails(/not JSON/, (f) => [join(f.dir, 'in', 'm', 'config.json')]),
  },
  {
    id: 'train-onnx-unsupported-architecture',
    group: 'train onnx',
    title: 'a model_type the exporter does not support (weights never read)',
    setup: (f) => {
      f.file('m/config.json', '{"model_type":"llama"}\n');
      f.file('m/model.safetensors', 'not safetensors');
    },
    argv: (f) => ['train', 'onnx', '--model', join(f.dir, 'in', 'm'), '--pooling', 'cls'],
    expect: fails(/unsupported or invalid encoder config: model_type/, (f) => [
      join(f.dir, 'in', 'm', 'config.json'),
    ]),
  },
  {
    id: 'train-onnx-no-pooling',
    group: 'train onnx',
    title: 'a folder that does not say how it pools, and no --pooling',
    setup: (f) => {
      f.file(
        'm/config.json',
        `${JSON.stringify({ model_type: 'bert', vocab_size: 30, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 16, max_position_embeddings: 16, hidden_act: 'gelu', layer_norm_eps: 1e-12, type_vocab_size: 2, pad_token_id: 0 })}\n`,
      );
      f.file('m/model.safetensors', 'x');
    },
    argv: (f) => ['train', 'onnx', '--model', join(f.dir, 'in', 'm'), '--precision', 'int8'],
    expect: fails(/does not say how it pools .*give a pooling/),
  },
  {
    id: 'train-onnx-precision-unknown',
    group: 'train onnx',
    title: '--precision int4',
    argv: (f) => ['train', 'onnx', '--model', f.dir, '--precision', 'int4'],
    expect: usage(/--precision must be one of fp32, int8, got 'int4'/),
  },
  // dv eval encode: corpus shards (issue 16)
  {
    id: 'encode-model-no-graph',
    group: 'eval encode',
    title: 'onnx:DIR folder without a model.onnx',
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      `onnx:${f.dir}`,
      '--corpus',
      join(f.dir, 'nope.jsonl'),
      '--out',
      f.out,
    ],
    expect: fails(/no model\.onnx \(or onnx\/model\.onnx\) in the model folder/, (f) => [f.dir]),
  },
  {
    id: 'encode-int8-graph-missing',
    group: 'eval encode',
    title: '--precision int8 for a folder without its int8 graph',
    setup: (f) => {
      f.file('m/onnx/model.onnx', 'x');
      f.file('corpus.jsonl', '{"docid":"d1","title":"","text":"a bass"}\n');
    },
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      `onnx:${join(f.dir, 'in', 'm')}`,
      '--precision',
      'int8',
      '--corpus',
      join(f.dir, 'in', 'corpus.jsonl'),
      '--out',
      f.out,
    ],
    expect: fails(
      /no onnx\/model_qint8\.onnx in the model folder \(write it with: dv train onnx --model .* --precision int8\)/,
    ),
  },
  {
    id: 'encode-precision-not-onnx',
    group: 'eval encode',
    title: '--precision int8 with a model that is not onnx:DIR',
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      'bm25',
      '--precision',
      'int8',
      '--corpus',
      f.file('corpus.jsonl', '{"docid":"d1","title":"","text":"a"}\n'),
      '--out',
      f.out,
    ],
    expect: usage(/--precision int8 needs an onnx:DIR model, got 'bm25'/),
  },
  {
    id: 'encode-shard-out-of-range',
    group: 'eval encode',
    title: '--shard 4/4 (0-based)',
    argv: (f) => [
      'eval',
      'encode',
      '--model',
      'bm25',
      '--corpus',
      f.file('corpus.jsonl', '{"docid":"d1","title":"","text":"a"}\n'),
      '--shard',
      '4/4',
      '--out',
      f.out,
    ],
    expect: usage(/i\/n/),
  },
  ...OUTPUT_FOLDER_CASES,
  ...STRICT_INPUT_CASES,
];

/** Writes the shared read-only inputs under `dir`; returns their paths. */
export function writeSharedInputs(dir: string): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const p = (name: string, body: string) => {
    writeFileSync(join(dir, name), body);
    return join(dir, name);
  };
  return {
    set: p('set.json', validSet),
    seeds: p('seeds.jsonl', seedsFile(['a', 'b', 'c', 'd'])),
    seeds40: p('seeds40.jsonl', seedsFile(Array.from({ length: 40 }, (_, i) => `t${i}`))),
  };
}
