// The E2B adapter, and so the real `e2b` SDK, against the local stand-in of E2B's API.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderSandbox, SandboxProvider } from '../provider';
import { SandboxProviderError } from '../provider';
import { startE2bStandin } from '../testing/e2b-standin';
import { sleepingFor } from '../testing/left-running.test-support';
import type { ProviderStandin } from '../testing/standin';
import { createE2bProvider } from './e2b-provider';

const WORKDIR = '/home/user/workspace';

let standin: ProviderStandin;
let provider: SandboxProvider;

beforeAll(async () => {
  standin = await startE2bStandin();
  provider = createE2bProvider({ env: { ...standin.env } });
});
afterAll(async () => {
  await standin?.close();
});

async function failure(call: Promise<unknown>): Promise<SandboxProviderError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxProviderError);
  return err as SandboxProviderError;
}

function rpcCount(name: string): number {
  return standin.requests.filter((r) => r === `POST /${name}`).length;
}

describe('the E2B provider', () => {
  it('creates, lists, stops, attaches and removes labelled sandboxes', async () => {
    const sb = await provider.create({ labels: { thread: 't1' } });
    expect(sb.workdir).toBe(WORKDIR);
    expect(standin.boxes.get(sb.id)?.stat(WORKDIR)?.isDirectory()).toBe(true);
    // A sandbox of the same account that is not Deepdesk's is not listed.
    const { E2B } = await import('e2b');
    const other = await new E2B({ apiKey: standin.env.E2B_API_KEY, apiUrl: standin.env.E2B_API_URL, sandboxUrl: standin.env.E2B_SANDBOX_URL }).Sandbox.create('base', { metadata: { thread: 't1' } });

    const listed = await provider.list();
    expect(listed.map((s) => s.id)).toEqual([sb.id]);
    expect(listed[0]).toMatchObject({ provider: 'e2b', state: 'running', labels: { deepdesk: '1', thread: 't1' } });
    expect(standin.boxes.has(other.sandboxId)).toBe(true);
    // A server that drops the label filter lists everyone's: Deepdesk still shows only its own.
    standin.ignoreListFilter(true);
    try {
      expect((await provider.list()).map((s) => s.id)).not.toContain(other.sandboxId);
      expect((await provider.list()).map((s) => s.id)).toContain(sb.id);
    } finally {
      standin.ignoreListFilter(false);
    }

    await sb.upload([{ path: `${WORKDIR}/kept.txt`, content: new TextEncoder().encode('kept\n') }]);
    await provider.stop(sb.id);
    expect((await provider.list()).find((s) => s.id === sb.id)?.state).toBe('stopped');
    // Paused: a call is refused as `stopped` (resumable by attach), not `gone`.
    expect((await failure(sb.execute('true', { timeoutMs: 5000 }))).reason).toBe('stopped');

    const again = await provider.attach(sb.id);
    expect((await provider.list()).find((s) => s.id === sb.id)?.state).toBe('running');
    expect(await again.execute('cat kept.txt', { timeoutMs: 5000 })).toEqual({ output: 'kept\n', exitCode: 0, timedOut: false });

    await provider.remove(sb.id);
    expect(standin.boxes.has(sb.id)).toBe(false);
    expect(await provider.list()).toEqual([]);
    const attachGone = await failure(provider.attach(sb.id));
    expect(attachGone.reason).toBe('gone');
    expect(attachGone.message).toBe(`The E2B sandbox ${sb.id} is gone (deleted or expired).`);
    expect((await failure(provider.remove(sb.id))).reason).toBe('gone');
    expect((await failure(provider.stop(sb.id))).reason).toBe('gone');
    await other.kill();
  });

  describe('in a sandbox', () => {
    let sb: ProviderSandbox;
    beforeAll(async () => {
      sb = await provider.create({ labels: {} });
    });
    afterAll(async () => {
      await provider.remove(sb.id).catch(() => undefined);
    });
    const box = () => standin.boxes.get(sb.id);

    it('runs a command at the workdir or a cwd, with its output, streamed, and its exit code', async () => {
      const streamed: string[] = [];
      const r = await sb.execute('echo out; echo err >&2; pwd; exit 3', { timeoutMs: 10_000, onOutput: (c) => streamed.push(c) });
      expect(r.exitCode).toBe(3);
      expect(r.timedOut).toBe(false);
      expect(r.output.split('\n').sort()).toEqual(['', WORKDIR, 'err', 'out']);
      expect(streamed.join('')).toBe(r.output);
      expect(await sb.execute('pwd', { cwd: '/tmp', timeoutMs: 10_000 })).toEqual({ output: '/tmp\n', exitCode: 0, timedOut: false });
      expect((await sb.execute('kill -9 $$', { timeoutMs: 10_000 })).exitCode).toBe(137);
    });

    it('ends the whole process tree at the timeout and says 124', async () => {
      const starts = rpcCount('process.Process/Start');
      const r = await sb.execute('sleep 987721 & echo started; sleep 30', { timeoutMs: 500 });
      expect(r).toEqual({ output: 'started\n', exitCode: 124, timedOut: true });
      // The command's process itself (SendSignal) and its process group (a second command).
      expect(rpcCount('process.Process/SendSignal')).toBeGreaterThan(0);
      expect(rpcCount('process.Process/Start')).toBe(starts + 2);
      await expect.poll(() => sleepingFor(sb, '987721'), { timeout: 60_000 }).toBe(0);
    });

    it('ends the whole process tree when cancelled and says null', async () => {
      const controller = new AbortController();
      const r = await sb.execute('sleep 987722 & echo started; sleep 30', {
        timeoutMs: 60_000,
        signal: controller.signal,
        onOutput: (c) => c.includes('started') && controller.abort(),
      });
      expect(r).toEqual({ output: 'started\n', exitCode: null, timedOut: false });
      await expect.poll(() => sleepingFor(sb, '987722'), { timeout: 60_000 }).toBe(0);
    });

    it('uploads a batch in one request and downloads it, with modes and per-file errors', async () => {
      const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
      const posts = standin.requests.filter((r) => r === 'POST /files').length;
      const up = await sb.upload([
        { path: `${WORKDIR}/bin/all.bin`, content: binary },
        { path: `${WORKDIR}/a/b/c/deep.txt`, content: new TextEncoder().encode('deep\n') },
        { path: `${WORKDIR}/run.sh`, content: new TextEncoder().encode('#!/bin/sh\necho ran\n'), mode: 0o755 },
        { path: `${WORKDIR}/private.txt`, content: new TextEncoder().encode('p'), mode: 0o600 },
      ]);
      expect(up).toEqual([{ path: `${WORKDIR}/bin/all.bin` }, { path: `${WORKDIR}/a/b/c/deep.txt` }, { path: `${WORKDIR}/run.sh` }, { path: `${WORKDIR}/private.txt` }]);
      expect(standin.requests.filter((r) => r === 'POST /files').length).toBe(posts + 1);
      expect(await sb.execute('./run.sh; stat -c %a run.sh private.txt', { timeoutMs: 10_000 })).toMatchObject({ output: 'ran\n755\n600\n', exitCode: 0 });

      const down = await sb.download([`${WORKDIR}/bin/all.bin`, `${WORKDIR}/a/b/c/deep.txt`, `${WORKDIR}/missing.txt`, `${WORKDIR}/a/b`]);
      expect(down.map((d) => d.path)).toEqual([`${WORKDIR}/bin/all.bin`, `${WORKDIR}/a/b/c/deep.txt`, `${WORKDIR}/missing.txt`, `${WORKDIR}/a/b`]);
      expect(Buffer.from(down[0]!.content!)).toEqual(Buffer.from(binary));
      expect(new TextDecoder().decode(down[1]!.content)).toBe('deep\n');
      expect(down[2]).toEqual({ path: `${WORKDIR}/missing.txt`, error: 'file_not_found' });
      expect(down[3]).toEqual({ path: `${WORKDIR}/a/b`, error: 'is_directory' });
    });

    it('returns a failing file of a batch as its error and writes the rest', async () => {
      const up = await sb.upload([
        { path: `${WORKDIR}/ok1.txt`, content: new TextEncoder().encode('1') },
        { path: `${WORKDIR}/a`, content: new TextEncoder().encode('onto a directory') },
        { path: `${WORKDIR}/ok2.txt`, content: new TextEncoder().encode('2') },
      ]);
      expect(up).toEqual([{ path: `${WORKDIR}/ok1.txt` }, { path: `${WORKDIR}/a`, error: 'is_directory' }, { path: `${WORKDIR}/ok2.txt` }]);
      expect(box()?.readFile(`${WORKDIR}/ok2.txt`).toString()).toBe('2');
    });
  });

  describe('failures, by effect', () => {
    it('without a key: the one line naming the variable and Settings, before any request', () => {
      const sent = standin.requests.length;
      const { E2B_API_KEY: _key, ...rest } = standin.env;
      let err: unknown;
      try {
        createE2bProvider({ env: rest, saved: { E2B_API_KEY: '' } });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SandboxProviderError);
      expect((err as SandboxProviderError).message).toBe('E2B needs E2B_API_KEY: set it in the environment or in Settings › Sandboxes.');
      expect((err as SandboxProviderError).reason).toBe('credentials');
      expect(standin.requests.length).toBe(sent);
      expect(() => createE2bProvider({ env: rest, saved: { E2B_API_KEY: standin.env.E2B_API_KEY } })).not.toThrow();
    });

    it('a refused key is auth', async () => {
      const wrong = createE2bProvider({ env: { ...standin.env, E2B_API_KEY: 'e2b_wrong' } });
      const err = await failure(wrong.create({ labels: {} }));
      expect(err.reason).toBe('auth');
      expect(err.message).toBe('E2B refused the API key (E2B_API_KEY).');
      standin.fail('auth');
      try {
        expect((await failure(provider.list())).reason).toBe('auth');
      } finally {
        standin.fail(null);
      }
    });

    it('a closed port is unreachable', async () => {
      const server = http.createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await new Promise<void>((r) => server.close(() => r()));
      const closed = createE2bProvider({ env: { E2B_API_KEY: 'k', E2B_API_URL: url, E2B_SANDBOX_URL: url } });
      const err = await failure(closed.create({ labels: {} }));
      expect(err.reason).toBe('unreachable');
      expect(err.message).toBe(`Cannot reach E2B at ${url}: connection refused.`);
    });

    it('out of quota is quota', async () => {
      standin.fail('quota');
      try {
        const err = await failure(provider.create({ labels: {} }));
        expect(err.reason).toBe('quota');
        expect(err.message).toMatch(/^E2B says the account is out of quota: .*maximum number of concurrent E2B sandboxes/);
        expect(err.message.length).toBeLessThan(400);
      } finally {
        standin.fail(null);
      }
    });

    it('a sandbox that vanishes mid-command is gone, and the call returns', async () => {
      const sb = await provider.create({ labels: {} });
      // The command would outlast the test: the call returns because the sandbox is gone.
      const err = await failure(sb.execute('echo started; sleep 600', { timeoutMs: 600_000, onOutput: (c) => c.includes('started') && standin.vanish(sb.id) }));
      expect(err.reason).toBe('gone');
      expect(err.message).toBe(`The E2B sandbox ${sb.id} is gone (deleted or expired).`);
      expect((await failure(sb.execute('true', { timeoutMs: 5000 }))).reason).toBe('gone');
      expect((await failure(sb.download([`${WORKDIR}/x`]))).reason).toBe('gone');
      expect((await failure(sb.upload([{ path: `${WORKDIR}/x`, content: new Uint8Array(1) }]))).reason).toBe('gone');
    });
  });
});
