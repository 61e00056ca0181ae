// The Modal adapter driving the real `modal` SDK against the local stand-in of Modal's API.

import fs from 'node:fs';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProviderSandbox, SandboxProvider } from '../provider';
import { SandboxProviderError } from '../provider';
import { sleepingFor } from '../testing/left-running.test-support';
import { startModalStandin } from '../testing/modal-standin';
import type { ProviderStandin } from '../testing/standin';
import { createModalProvider, MODAL_WORKDIR } from './modal-provider';

let standin: ProviderStandin;
let provider: SandboxProvider;

beforeAll(async () => {
  standin = await startModalStandin();
  // The SDK reads its server (and ~/.modal.toml) from the process's environment only.
  for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
  provider = createModalProvider({ env: standin.env });
});
afterEach(() => standin.fail(null));
afterAll(async () => {
  vi.unstubAllEnvs();
  await standin?.close();
});

async function failureOf(p: Promise<unknown>): Promise<SandboxProviderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(SandboxProviderError);
  return err as SandboxProviderError;
}

/** Waits until `check` holds (polling), failing after `ms`. */
async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('the state never came');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function hostFile(sb: ProviderSandbox, path: string): string | undefined {
  const box = standin.boxes.get(sb.id)!;
  const st = box.stat(path);
  return st ? box.hostPath(path) : undefined;
}

describe('the Modal provider against the stand-in', () => {
  it('says which variables are missing, in one line, for every one of them', () => {
    const line = 'Modal needs MODAL_TOKEN_ID and MODAL_TOKEN_SECRET: set them in the environment or in Settings › Sandboxes.';
    for (const env of [{}, { MODAL_TOKEN_ID: 'ak-1' }, { MODAL_TOKEN_SECRET: 'as-1' }, { MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: 'as-1' }]) {
      let err: unknown;
      try {
        createModalProvider({ env });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SandboxProviderError);
      expect((err as SandboxProviderError).message).toBe(line);
      expect((err as SandboxProviderError).reason).toBe('credentials');
    }
    expect(() => createModalProvider({ env: {}, saved: { MODAL_TOKEN_ID: 'ak-1', MODAL_TOKEN_SECRET: 'as-1' } })).not.toThrow();
  });

  it('creates a labelled sandbox with its workdir, lists only Deepdesk’s, attaches, and stops and removes it', async () => {
    const sb = await provider.create({ labels: { thread: 't1' }, cpu: 2, memoryGiB: 1, idleTimeoutMin: 10 });
    expect(sb.workdir).toBe(MODAL_WORKDIR);
    expect(standin.boxes.get(sb.id)?.stat(MODAL_WORKDIR)?.isDirectory()).toBe(true);
    expect(standin.requests).toContain('SandboxCreateV2');

    const listed = await provider.list();
    expect(listed).toContainEqual(expect.objectContaining({ id: sb.id, provider: 'modal', state: 'running', labels: { deepdesk: '1', thread: 't1' } }));
    // A sandbox of the same workspace, in another app and without Deepdesk's tag.
    const { ModalClient } = await import('modal');
    const mc = new ModalClient({ tokenId: standin.env.MODAL_TOKEN_ID, tokenSecret: standin.env.MODAL_TOKEN_SECRET });
    const theirs = await mc.sandboxes.create(await mc.apps.fromName('theirs', { createIfMissing: true }), mc.images.fromRegistry('debian:bookworm-slim'));
    expect(listed.map((s) => s.id)).not.toContain(theirs.sandboxId);
    // A server that drops the label filter lists everyone's: Deepdesk still shows only its own.
    standin.ignoreListFilter(true);
    try {
      expect((await provider.list()).map((s) => s.id)).not.toContain(theirs.sandboxId);
      expect((await provider.list()).map((s) => s.id)).toContain(sb.id);
    } finally {
      standin.ignoreListFilter(false);
    }
    await theirs.terminate();
    mc.close();

    const again = await provider.attach(sb.id);
    expect((await again.execute('echo $PWD', { timeoutMs: 10_000 })).output).toBe(`${MODAL_WORKDIR}\n`);

    await provider.stop(sb.id);
    expect((await provider.list()).map((s) => s.id)).not.toContain(sb.id);
    expect((await failureOf(provider.attach(sb.id))).reason).toBe('gone');
    await provider.remove(sb.id);
    expect((await failureOf(provider.remove('sb-v2-nosuch'))).reason).toBe('gone');
  });

  describe('a sandbox', () => {
    let sb: ProviderSandbox;
    beforeAll(async () => {
      sb = await provider.create({ labels: {} });
    });

    it('runs a command: output (stderr too, streamed as it comes), exit code, cwd', async () => {
      const chunks: string[] = [];
      const r = await sb.execute('echo out; echo err >&2; pwd; exit 3', { timeoutMs: 10_000, onOutput: (c) => chunks.push(c) });
      expect(r).toEqual({ output: `out\nerr\n${MODAL_WORKDIR}\n`, exitCode: 3, timedOut: false });
      expect(chunks.join('')).toBe(r.output);
      const inTmp = await sb.execute('pwd', { timeoutMs: 10_000, cwd: '/tmp' });
      expect(inTmp).toEqual({ output: '/tmp\n', exitCode: 0, timedOut: false });
    });

    it('leaves nothing running in the sandbox after a command that left nothing running (the stand-in, command after command)', async () => {
      const count = async () => Number((await sb.execute('n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo $n', { timeoutMs: 10_000 })).output);
      const first = await count();
      for (let i = 0; i < 8; i++) expect((await sb.execute('true', { timeoutMs: 10_000 })).exitCode).toBe(0);
      // An ended command's last processes may take a moment to go; none stays.
      await expect.poll(count, { timeout: 60_000, interval: 200 }).toBeLessThanOrEqual(first);
    });

    it('ends the whole process tree at the timeout: 124, and a background child is gone', async () => {
      const r = await sb.execute('sleep 987711 & echo begun; sleep 30', { timeoutMs: 700 });
      expect(r).toEqual({ output: 'begun\n', exitCode: 124, timedOut: true });
      await expect.poll(() => sleepingFor(sb, '987711'), { timeout: 60_000 }).toBe(0);
    });

    it('ends the whole process tree when aborted, and returns exitCode null', async () => {
      const abort = new AbortController();
      let output = '';
      const run = sb.execute('sleep 987712 & echo begun; sleep 30', {
        timeoutMs: 60_000,
        signal: abort.signal,
        onOutput: (c) => (output += c),
      });
      await until(() => output.includes('begun'));
      abort.abort();
      expect(await run).toEqual({ output: 'begun\n', exitCode: null, timedOut: false });
      await expect.poll(() => sleepingFor(sb, '987712'), { timeout: 60_000 }).toBe(0);
    });

    it('uploads and downloads a batch: binary, nested folders, modes, and per-file errors', async () => {
      const binary = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
      const up = await sb.upload([
        { path: `${MODAL_WORKDIR}/bin/data.bin`, content: binary },
        { path: `${MODAL_WORKDIR}/a/b/c/run.sh`, content: new TextEncoder().encode('#!/bin/sh\necho ran\n'), mode: 0o755 },
        { path: `${MODAL_WORKDIR}/a/b/c`, content: new Uint8Array([1]) },
        { path: `${MODAL_WORKDIR}/secret.txt`, content: new TextEncoder().encode('s'), mode: 0o600 },
      ]);
      expect(up).toEqual([
        { path: `${MODAL_WORKDIR}/bin/data.bin` },
        { path: `${MODAL_WORKDIR}/a/b/c/run.sh` },
        { path: `${MODAL_WORKDIR}/a/b/c`, error: 'is_directory' },
        { path: `${MODAL_WORKDIR}/secret.txt` },
      ]);
      expect(fs.statSync(hostFile(sb, `${MODAL_WORKDIR}/a/b/c/run.sh`)!).mode & 0o777).toBe(0o755);
      expect(fs.statSync(hostFile(sb, `${MODAL_WORKDIR}/secret.txt`)!).mode & 0o777).toBe(0o600);
      expect((await sb.execute('./a/b/c/run.sh', { timeoutMs: 10_000 })).output).toBe('ran\n');

      const down = await sb.download([`${MODAL_WORKDIR}/bin/data.bin`, `${MODAL_WORKDIR}/missing.txt`, `${MODAL_WORKDIR}/a/b`, `${MODAL_WORKDIR}/a/b/c/run.sh`]);
      expect(Buffer.from(down[0]!.content!).equals(Buffer.from(binary))).toBe(true);
      expect(down.slice(1).map((d) => d.error ?? new TextDecoder().decode(d.content))).toEqual(['file_not_found', 'is_directory', '#!/bin/sh\necho ran\n']);
      expect(standin.requests.filter((r) => r === 'SandboxCreateV2').length).toBeGreaterThan(0);
    });
  });

  it('says the sandbox is gone when it vanishes mid-command, and the call returns', async () => {
    const sb = await provider.create({ labels: {} });
    let output = '';
    const run = sb.execute('echo begun; sleep 60', { timeoutMs: 120_000, onOutput: (c) => (output += c) });
    await until(() => output.includes('begun'));
    standin.vanish(sb.id);
    const err = await failureOf(run);
    expect(err.reason).toBe('gone');
    expect(err.message).toContain(sb.id);
    expect((await failureOf(sb.download([`${MODAL_WORKDIR}/x`]))).reason).toBe('gone');
    expect((await failureOf(provider.attach(sb.id))).reason).toBe('gone');
  });

  it('says the key was refused (auth) and the account is out of quota (quota)', async () => {
    standin.fail('auth');
    const refused = await failureOf(createModalProvider({ env: standin.env }).list());
    expect(refused.reason).toBe('auth');
    expect(refused.message).toMatch(/^Modal refused the token \(MODAL_TOKEN_ID and MODAL_TOKEN_SECRET\)/);
    standin.fail('quota');
    const quota = await failureOf(provider.create({ labels: {} }));
    expect(quota.reason).toBe('quota');
    expect(quota.message).toMatch(/^Modal says the account is out of quota: /);
  });

  it('says Modal cannot be reached at a closed port (unreachable)', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    vi.stubEnv('MODAL_SERVER_URL', url);
    try {
      const err = await failureOf(createModalProvider({ env: { ...standin.env, MODAL_SERVER_URL: url } }).list());
      expect(err.reason).toBe('unreachable');
      expect(err.message).toBe(`Cannot reach Modal at ${url}: connection refused.`);
    } finally {
      vi.stubEnv('MODAL_SERVER_URL', standin.env.MODAL_SERVER_URL!);
    }
  });
});
