/**
 * What the paper profile needs before it starts, checked all at once so the user gets ONE list:
 *   - each synthesis endpoint answers `GET {baseURL}/models` listing the configured model (or,
 *     without a listing, answers a 1-token chat request for it), with the API key from the
 *     configured environment variable when set;
 *   - each dataset the run reads (the seed dataset, every task of the configured benchmarks, and
 *     any other in `paper.datasets`) is a registered Hub dataset with a pinned (or configured)
 *     commit that is in the Hub cache (huggingface_hub layout) or answers on the Hub's revision API;
 *   - each backbone's model repo answers on the Hub's model revision API (or is cached);
 *   - compute: a GPU tfjs backend (tfjs-node-gpu), or a scale-out launcher on PATH (the
 *     configured `launcher`'s program, else `command`; `launch: false` exports only and needs
 *     none; `cpu`, for scaled-down configs, needs nothing).
 * Nothing is downloaded here; each missing item says what to do.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '@dv/core';
import { HUB_DATASETS, hubCacheDir } from '@dv/data';
import { configuredRevision } from './paper-config.js';
import { findExecutable, resolveScaleOutLaunch } from './scale-out-launcher.js';
import { benchmarkDatasets } from './stages/paper/benchmarks-stage.js';

/** Whether `repo@revision` is in the Hub cache (a snapshot of that commit, or a ref to one). */
function cached(cache: string, kind: 'datasets' | 'models', repo: string, revision: string): boolean {
  const dir = join(cache, `${kind}--${repo.split('/').join('--')}`);
  return existsSync(join(dir, 'snapshots', revision)) || existsSync(join(dir, 'refs', revision));
}

export class PrerequisitesMissing extends Error {
  override readonly name = 'PrerequisitesMissing';
  constructor(readonly missing: string[]) {
    super(
      `the paper profile cannot start; missing (${missing.length}):\n${missing.map((m) => `  - ${m}`).join('\n')}`,
    );
  }
}

async function get(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Response | string> {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return e.cause?.code ?? e.name ?? 'unreachable';
  }
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Response | string> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return e.cause?.code ?? e.name ?? 'unreachable';
  }
}

export interface PrerequisiteOptions {
  timeoutMs?: number;
  /** Probe for a GPU backend (default: loads @dv/train's backend chooser). */
  gpuBackend?: () => Promise<string | null>;
}

export async function checkPaperPrerequisites(
  config: RunConfig,
  o: PrerequisiteOptions = {},
): Promise<string[]> {
  const missing: string[] = [];
  const paper = config.paper;
  if (!paper)
    return [
      'config.paper: the paper profile needs its prerequisites section (endpoint, datasets, models, compute)',
    ];
  const timeoutMs = o.timeoutMs ?? 5000;

  const key = process.env[config.synthesis.apiKeyEnv];
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  for (const base of config.synthesis.baseURLs) {
    const root = base.replace(/\/+$/, '');
    const r = await get(`${root}/models`, auth, timeoutMs);
    if (typeof r === 'string') {
      missing.push(
        `synthesis endpoint ${base}: not reachable (${r}); start the server or set synthesis.baseURLs`,
      );
      continue;
    }
    if (r.status === 401 || r.status === 403) {
      missing.push(
        `synthesis endpoint ${base}: refused the API key (HTTP ${r.status}); set $${config.synthesis.apiKeyEnv}`,
      );
      continue;
    }
    if (r.ok) {
      const body = (await r.json().catch(() => null)) as { data?: { id?: string }[] } | null;
      const ids = (body?.data ?? []).map((m) => m.id);
      if (!ids.includes(config.synthesis.model))
        missing.push(
          `synthesis endpoint ${base}: does not serve model '${config.synthesis.model}' (serves: ${ids.join(', ') || 'none'})`,
        );
      continue;
    }
    // No model listing (some servers): one 1-token chat request says whether the model answers.
    const c = await post(
      `${root}/chat/completions`,
      { model: config.synthesis.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
      auth,
      timeoutMs,
    );
    if (typeof c === 'string') missing.push(`synthesis endpoint ${base}: not reachable (${c})`);
    else if (c.status === 401 || c.status === 403)
      missing.push(
        `synthesis endpoint ${base}: refused the API key (HTTP ${c.status}); set $${config.synthesis.apiKeyEnv}`,
      );
    else if (!c.ok)
      missing.push(
        `synthesis endpoint ${base}: a chat request for '${config.synthesis.model}' answered HTTP ${c.status}`,
      );
  }

  const endpoint = (paper.hubEndpoint ?? process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(
    /\/+$/,
    '',
  );
  const cache = paper.hubCache ?? hubCacheDir();
  const token = process.env.HF_TOKEN ?? process.env.HUGGING_FACE_HUB_TOKEN;
  const hubHeaders: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const wanted = new Map<string, string | undefined>();
  const want = (name: string) => {
    if (!wanted.has(name)) wanted.set(name, configuredRevision(paper, name));
  };
  want(paper.seeds.dataset);
  for (const d of benchmarkDatasets(config)) want(d.key);
  for (const d of paper.datasets) want(d.name);
  for (const [name, configured] of wanted) {
    const d = { name, revision: configured };
    const entry = (HUB_DATASETS as Record<string, { repo: string; revision: string | null }>)[d.name];
    if (!entry) {
      missing.push(
        `dataset '${d.name}': not a registered Hub dataset (one of: ${Object.keys(HUB_DATASETS).join(', ')})`,
      );
      continue;
    }
    const revision = d.revision ?? entry.revision;
    if (!revision) {
      missing.push(
        `dataset '${d.name}' (${entry.repo}): no pinned revision; give paper.datasets[{"name":"${d.name}","revision":"<40-hex commit>"}]`,
      );
      continue;
    }
    if (cached(cache, 'datasets', entry.repo, revision)) continue;
    const r = await get(`${endpoint}/api/datasets/${entry.repo}/revision/${revision}`, hubHeaders, timeoutMs);
    if (typeof r === 'string')
      missing.push(
        `dataset '${d.name}' (${entry.repo}@${revision.slice(0, 12)}): not cached in ${cache} and the Hub ${endpoint} is not reachable (${r})`,
      );
    else if (!r.ok)
      missing.push(
        `dataset '${d.name}' (${entry.repo}@${revision.slice(0, 12)}): not cached and the Hub answered HTTP ${r.status}${r.status === 401 ? ' (set HF_TOKEN)' : ''}`,
      );
  }
  for (const m of paper.models.filter((x) => config.backbones.includes(x.name))) {
    if (cached(cache, 'models', m.repo, m.revision)) continue;
    const r = await get(
      `${endpoint}/api/models/${m.repo}/revision/${encodeURIComponent(m.revision)}`,
      hubHeaders,
      timeoutMs,
    );
    if (typeof r === 'string')
      missing.push(
        `backbone '${m.name}' (${m.repo}@${m.revision}): not cached and the Hub ${endpoint} is not reachable (${r})`,
      );
    else if (!r.ok)
      missing.push(
        `backbone '${m.name}' (${m.repo}@${m.revision}): not cached and the Hub answered HTTP ${r.status}`,
      );
  }

  if (paper.compute === 'scale-out') {
    if (!paper.scaleOut)
      missing.push('compute scale-out: set paper.scaleOut.command (the launcher the exported mixes go to)');
    else if (paper.scaleOut.launcher) {
      if (!findExecutable(paper.scaleOut.launcher[0]!))
        missing.push(
          `compute scale-out: the launcher '${paper.scaleOut.launcher[0]}' (paper.scaleOut.launcher) is not an executable on PATH`,
        );
    } else if (
      paper.scaleOut.launch &&
      !findExecutable(paper.scaleOut.command.split(/\s+/)[0]!) &&
      !resolveScaleOutLaunch(paper)
    )
      missing.push(
        `compute scale-out: '${paper.scaleOut.command.split(/\s+/)[0]}' is not an executable on PATH (or set paper.scaleOut.launch to false to export only)`,
      );
  } else if (paper.compute === 'gpu') {
    const probe =
      o.gpuBackend ??
      (async () => {
        const { initBackend } = await import('@dv/train');
        const b = await initBackend().catch(() => null);
        return b?.choice ?? null;
      });
    const got = await probe();
    if (got !== 'tensorflow-gpu')
      missing.push(
        `compute gpu: no GPU backend (tfjs-node-gpu); this machine has '${got ?? 'none'}' (see 'pnpm dv doctor'), or set paper.compute to "scale-out" (or "cpu" for a scaled-down config)`,
      );
  }
  return missing;
}
