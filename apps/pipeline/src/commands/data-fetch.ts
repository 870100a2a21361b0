/** `dv data fetch`: a Hub dataset at its pinned revision into the local cache (@dv/data). */
import { DataError, guardOutputDir, unsafePathReason } from '@dv/core';
import { downloadDataset, fetchRegisteredDataset, HUB_DATASETS } from '@dv/data';
import { defineCommand, UsageError } from '../cli-kit.js';

export const dataFetchCommand = defineCommand({
  name: 'fetch',
  summary: 'download a Hub dataset at its pinned revision into the local cache',
  usage: 'NAME | --repo OWNER/NAME --revision COMMIT [--json]',
  description: `Downloads a registered dataset (${Object.keys(HUB_DATASETS).join(', ')})
or any dataset repo at an explicit revision, resumably, into the Hub's standard cache (DV_HUB_CACHE, HF_HUB_CACHE,
$HF_HOME/hub, else ~/.cache/huggingface/hub; shared with Python's huggingface_hub). The token comes from HF_TOKEN; HF_ENDPOINT changes the Hub address; --offline
(or HF_HUB_OFFLINE=1) uses only the cache.`,
  allowPositionals: true,
  options: {
    repo: {
      type: 'string',
      description: 'a dataset repo instead of a registered name',
      valueName: 'OWNER/NAME',
    },
    revision: {
      type: 'string',
      description: 'commit (required for --repo and unpinned entries)',
      valueName: 'REV',
    },
    include: {
      type: 'string',
      multiple: true,
      description: 'only files matching this glob (repeatable)',
      valueName: 'GLOB',
    },
    cache: { type: 'string', description: 'cache folder', valueName: 'DIR' },
    offline: { type: 'boolean', description: 'use only the cache' },
    json: {
      type: 'boolean',
      description: 'print {repo, revision, commit, dir, files} as one JSON object; progress stays on stderr',
    },
  },
  async run(ctx) {
    const name = ctx.positionals[0];
    const repo = ctx.values.repo;
    if ((name === undefined) === (repo === undefined))
      throw new UsageError('give a registered NAME or --repo (not both)');
    const revision = ctx.values.revision;
    // names that become cache paths: refused here as usage, and again by the Hub client
    if (typeof repo === 'string' && (unsafePathReason(repo, 'path') || repo.split('/').length > 2))
      throw new UsageError(`--repo must be OWNER/NAME, got '${repo}'`);
    if (revision !== undefined && unsafePathReason(revision, 'path'))
      throw new UsageError(`--revision ${JSON.stringify(revision)} ${unsafePathReason(revision, 'path')}`);
    const include = ctx.values.include;
    const common = {
      // the one output-folder guard (kernel file systems, a file as --cache: issue 25)
      ...(ctx.values.cache !== undefined
        ? { cacheDir: guardOutputDir(ctx.values.cache, { flag: '--cache' }) }
        : {}),
      ...(ctx.values.offline === true ? { offline: true } : {}),
      ...(include ? { include } : {}),
      onProgress: (path: string, got: number, total: number) => {
        if (got === total) ctx.stderr.write(`  ${path} (${total} bytes)\n`);
      },
    };
    let got: Awaited<ReturnType<typeof downloadDataset>>;
    try {
      if (name !== undefined) {
        if (!(name in HUB_DATASETS))
          throw new UsageError(`unknown dataset '${name}'; one of: ${Object.keys(HUB_DATASETS).join(', ')}`);
        got = await fetchRegisteredDataset(name, { ...common, ...(revision ? { revision } : {}) });
      } else {
        if (!revision) throw new UsageError('--repo needs --revision (a commit)');
        got = await downloadDataset(String(repo), revision, common);
      }
    } catch (err) {
      // fetch() reports a closed port or DNS failure as a bare TypeError: name the endpoint
      if (err instanceof TypeError && /fetch failed/.test(err.message)) {
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? err.message;
        throw new DataError(
          `cannot reach the Hub at ${process.env.HF_ENDPOINT ?? 'https://huggingface.co'}: ${cause} (set HF_ENDPOINT, or use --offline with a filled cache)`,
        );
      }
      throw err;
    }
    if (ctx.values.json === true)
      ctx.stdout.write(
        `${JSON.stringify({
          ...(name !== undefined ? { name } : {}),
          repo: got.repo,
          revision: got.revision,
          commit: got.commit,
          dir: got.dir,
          files: got.files,
        })}\n`,
      );
    else ctx.stdout.write(`${got.repo}@${got.commit}: ${got.files.length} files in ${got.dir}\n`);
    return 0;
  },
});
