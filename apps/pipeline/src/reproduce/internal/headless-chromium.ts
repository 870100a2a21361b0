/**
 * Opens a local HTML file in headless Chromium (Debian's `chromium-headless-shell` or
 * `chromium`) over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4
 * out, NUL-separated JSON), and reports console errors, uncaught exceptions, failed loads and
 * every non-local request, plus a PNG screenshot. Used by the report's render test and to keep
 * the screenshot in docs/.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const CANDIDATES = [
  process.env.DV_CHROMIUM,
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
];

/** The first Chromium binary found (DV_CHROMIUM first), or null. */
export function findChromium(): string | null {
  return CANDIDATES.find((p): p is string => !!p && existsSync(p)) ?? null;
}

interface CdpParams {
  type?: string;
  args?: { value?: unknown; description?: string }[];
  exceptionDetails?: { text?: string; exception?: { description?: string } };
  entry?: { level?: string; text?: string; url?: string };
  request?: { url: string };
  errorText?: string;
}

export interface PageCheck {
  errors: string[];
  /** Requests to anything but file: and data: URLs. */
  networkRequests: string[];
  title: string;
  screenshot: Buffer;
}

export async function checkPage(
  htmlPath: string,
  options: { binary?: string; width?: number; height?: number; timeoutMs?: number } = {},
): Promise<PageCheck> {
  const binary = options.binary ?? findChromium();
  if (!binary) throw new Error('no Chromium binary (install chromium-headless-shell or set DV_CHROMIUM)');
  const profile = mkdtempSync(join(tmpdir(), 'dv-chromium-'));
  const child = spawn(
    binary,
    [
      '--headless',
      '--remote-debugging-pipe',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-extensions',
      `--user-data-dir=${profile}`,
      `--window-size=${options.width ?? 1280},${options.height ?? 1800}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  const toChrome = child.stdio[3] as Writable;
  const fromChrome = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  let nextId = 1;
  const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  const listeners: Array<
    (m: { method: string; params: Record<string, unknown>; sessionId?: string }) => void
  > = [];
  let buffer = '';
  fromChrome.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let i = buffer.indexOf('\0');
    while (i >= 0) {
      const msg = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      if (msg.id !== undefined && pending.has(msg.id)) {
        const p = pending.get(msg.id)!;
        pending.delete(msg.id);
        if (msg.error) p.fail(new Error(`${msg.error.message}`));
        else p.ok(msg.result);
      } else if (msg.method) for (const l of listeners) l(msg);
      i = buffer.indexOf('\0');
    }
  });
  const send = <T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string) =>
    new Promise<T>((ok, fail) => {
      const id = nextId++;
      pending.set(id, { ok: ok as (v: unknown) => void, fail });
      toChrome.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const timeout = options.timeoutMs ?? 30_000;
  const timer = setTimeout(() => {
    for (const p of pending.values())
      p.fail(new Error(`Chromium did not answer in ${timeout} ms: ${stderr.slice(-500)}`));
    pending.clear();
  }, timeout);
  try {
    const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const errors: string[] = [];
    const networkRequests: string[] = [];
    let loaded!: () => void;
    const loadedP = new Promise<void>((ok) => {
      loaded = ok;
    });
    listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      // CDP event payloads, loosely typed: only the fields read below
      const p = m.params as CdpParams;
      if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
        errors.push(`console.${p.type}: ${(p.args ?? []).map((a) => a.value ?? a.description).join(' ')}`);
      else if (m.method === 'Runtime.exceptionThrown')
        errors.push(`exception: ${p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text}`);
      else if (m.method === 'Log.entryAdded' && p.entry?.level === 'error')
        errors.push(`log: ${p.entry.text} ${p.entry.url ?? ''}`);
      else if (m.method === 'Network.requestWillBeSent' && !/^(file|data|about):/.test(p.request?.url ?? ''))
        networkRequests.push(p.request!.url);
      else if (m.method === 'Network.loadingFailed') errors.push(`load failed: ${p.errorText}`);
      else if (m.method === 'Page.loadEventFired') loaded();
    });
    for (const d of ['Runtime', 'Log', 'Network', 'Page']) await send(`${d}.enable`, {}, sessionId);
    await send('Page.navigate', { url: pathToFileURL(htmlPath).href }, sessionId);
    await loadedP;
    const title = await send<{ result: { value: string } }>(
      'Runtime.evaluate',
      { expression: 'document.title', returnByValue: true },
      sessionId,
    );
    const shot = await send<{ data: string }>(
      'Page.captureScreenshot',
      { format: 'png', captureBeyondViewport: false },
      sessionId,
    );
    return {
      errors,
      networkRequests,
      title: title.result.value,
      screenshot: Buffer.from(shot.data, 'base64'),
    };
  } finally {
    clearTimeout(timer);
    try {
      await Promise.race([send('Browser.close'), new Promise((ok) => setTimeout(ok, 2000))]);
    } catch {
      // already gone
    }
    const exited = new Promise((ok) => (child.exitCode !== null ? ok(null) : child.once('exit', ok)));
    child.kill('SIGKILL');
    await exited;
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch {
      // Chromium's helper processes may still be writing the profile: leave it to the OS temp cleanup
    }
  }
}
