// The Daytona adapter, and so the real @daytonaio/sdk, against the local stand-in of Daytona's
// API (../testing/daytona-standin.ts). Nothing here contacts the internet.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Daytona } from '@daytonaio/sdk';
import type { ProviderSandbox, SandboxProvider } from '../provider';
import { SandboxProviderError } from '../provider';
import { startDaytonaStandin } from '../testing/daytona-standin';
import { sleepingFor } from '../testing/left-running.test-support';
import type { ProviderStandin } from '../testing/standin';
import { createDaytonaProvider } from './daytona-provider';

let standin: ProviderStandin;
let provider: SandboxProvider;

beforeAll(async () => {
  standin = await startDaytonaStandin();
  provider = createDaytonaProvider({ env: { ...standin.env } });
});

afterAll(async () => {
  await standin?.close();
});

async function failureOf(work: Promise<unknown>): Promise<SandboxProviderError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxProviderError);
  return err as SandboxProviderError;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('daytona sandboxes', () => {
  it('creates, lists only its own, stops, attaches (starting it again) and removes', async () => {
    const sb = await provider.create({ labels: { thread: 't1' }, idleTimeoutMin: 30 });
    expect(sb.workdir).toBe('/home/daytona/workspace');
    expect(standin.boxes.get(sb.id)?.stat(sb.workdir)?.isDirectory()).toBe(true);
    // A sandbox someone else made on the same account.
    const other = await new Daytona({ apiKey: standin.env.DAYTONA_API_KEY, apiUrl: standin.env.DAYTONA_API_URL, target: 'us', useDeprecatedPolling: true }).create();

    const listed = await provider.list();
    expect(listed.map((s) => s.id)).toContain(sb.id);
    expect(listed.map((s) => s.id)).not.toContain(other.id);
    // A server that drops the label filter lists everyone's: Deepdesk still shows only its own.
    standin.ignoreListFilter(true);
    try {
      expect((await provider.list()).map((s) => s.id)).not.toContain(other.id);
      expect((await provider.list()).map((s) => s.id)).toContain(sb.id);
    } finally {
      standin.ignoreListFilter(false);
    }
    expect(listed.find((s) => s.id === sb.id)).toMatchObject({ provider: 'daytona', state: 'running', labels: { deepdesk: '1', thread: 't1' } });
    expect(standin.requests).toContain('POST /api/sandbox');
    expect(standin.requests).toContain(`POST /toolbox/${sb.id}/process/execute`);

    await provider.stop(sb.id);
    expect((await provider.list()).find((s) => s.id === sb.id)?.state).toBe('stopped');
    const again = await provider.attach(sb.id);
    expect((await provider.list()).find((s) => s.id === sb.id)?.state).toBe('running');
    expect(await again.execute('pwd', { timeoutMs: 10_000 })).toMatchObject({ output: '/home/daytona/workspace\n', exitCode: 0 });

    await provider.remove(sb.id);
    expect((await provider.list()).map((s) => s.id)).not.toContain(sb.id);
    expect(standin.boxes.has(sb.id)).toBe(false);
    const gone = await failureOf(provider.attach(sb.id));
    expect(gone.reason).toBe('gone');
    expect(gone.message).toBe(`The Daytona sandbox ${sb.id} is gone (deleted or expired).`);
  });
});

describe('daytona execute', () => {
  let sb: ProviderSandbox;
  beforeAll(async () => {
    sb = await provider.create({ labels: {} });
  });

  it('gives stdout and stderr together, the exit code, and runs in the workdir or the cwd given', async () => {
    const chunks: string[] = [];
    const r = await sb.execute('echo out; echo err 1>&2; pwd; exit 3', { timeoutMs: 10_000, onOutput: (c) => chunks.push(c) });
    // Two pipes, as in the daemon: the order across stdout and stderr is not kept.
    expect(r).toMatchObject({ exitCode: 3, timedOut: false });
    expect(r.output.split('\n').sort()).toEqual(['', '/home/daytona/workspace', 'err', 'out']);
    expect(chunks.join('')).toBe(r.output);
    expect((await sb.execute('pwd; cat; echo done', { cwd: '/tmp', timeoutMs: 10_000 })).output).toBe('/tmp\ndone\n');
    const missing = await sb.execute('true', { cwd: '/home/daytona/nowhere', timeoutMs: 10_000 });
    expect(missing.exitCode).not.toBe(0);
  });

  it('runs a short script (oneCall) in one call to the toolbox’s execute, with no session: output, exit code, cwd, stdin closed, and its timeout ends the group', async () => {
    const before = standin.requests.length;
    // `cat` would read the rest of the script from the daemon shell's stdin, were it not closed.
    const r = await sb.execute('echo out; echo err >&2; pwd; cat; exit 3\necho never', { cwd: '/tmp', timeoutMs: 10_000, oneCall: true });
    expect(r).toMatchObject({ exitCode: 3, timedOut: false });
    expect(r.output.split('\n').sort()).toEqual(['', '/tmp', 'err', 'out']);
    expect(standin.requests.slice(before)).toEqual([`POST /toolbox/${sb.id}/process/execute`]);
    // Quotes, a heredoc-looking line and `$S` in the script are its own.
    const quoted = await sb.execute(`S=mine; printf '%s|%s\\n' "$S" 'it'"'"'s'\nEOF`, { timeoutMs: 10_000, oneCall: true });
    expect(quoted.output.split('\n')[0]).toBe("mine|it's");
    const slow = await sb.execute('sleep 987701 & sleep 30', { timeoutMs: 700, oneCall: true });
    expect(slow).toMatchObject({ exitCode: 124, timedOut: true });
    await expect.poll(() => sleepingFor(sb, '987701'), { timeout: 60_000 }).toBe(0);
    // The stand-in's execute is the daemon's: the command is the shell's stdin, and an empty one is a 400.
    const raw = await new Daytona({ apiKey: standin.env.DAYTONA_API_KEY, apiUrl: standin.env.DAYTONA_API_URL, useDeprecatedPolling: true }).get(sb.id);
    expect((await raw.process.executeCommand('read line; echo "[$line]"\nsecond', undefined, undefined, 10)).result).toBe('[second]\n');
    await expect(raw.process.executeCommand('  ', undefined, undefined, 10)).rejects.toMatchObject({ statusCode: 400 });
    // Output as it arrives is a session's: asked for it, the session runs the command.
    const streamed: string[] = [];
    const at = standin.requests.length;
    await sb.execute('echo streamed', { timeoutMs: 10_000, oneCall: true, onOutput: (c) => streamed.push(c) });
    expect(streamed.join('')).toBe('streamed\n');
    expect(standin.requests.slice(at)).toContain(`POST /toolbox/${sb.id}/process/session`);
  });

  it('ends the whole process tree at the timeout: exit code 124, and a background child is gone', async () => {
    const r = await sb.execute('sleep 987702 & echo started; sleep 30', { timeoutMs: 700 });
    expect(r).toEqual({ output: 'started\n', exitCode: 124, timedOut: true });
    await expect.poll(() => sleepingFor(sb, '987702'), { timeout: 60_000 }).toBe(0);
  });

  it('ends the whole process tree when aborted, with exit code null', async () => {
    const controller = new AbortController();
    const r = await sb.execute('sleep 987703 & echo started; sleep 30', {
      timeoutMs: 30_000,
      signal: controller.signal,
      onOutput: (c) => {
        if (c.includes('started')) controller.abort();
      },
    });
    expect(r).toEqual({ output: 'started\n', exitCode: null, timedOut: false });
    await expect.poll(() => sleepingFor(sb, '987703'), { timeout: 60_000 }).toBe(0);
  });

  it('uploads and downloads a batch in one call each: binary, nested folders, modes, per-file errors', async () => {
    const wd = sb.workdir;
    const binary = new Uint8Array(256).map((_, i) => i);
    const before = standin.requests.length;
    const up = await sb.upload([
      { path: `${wd}/bin.dat`, content: binary },
      { path: `${wd}/a/b/c/nested.txt`, content: new TextEncoder().encode('nested\n') },
      { path: `${wd}/run.sh`, content: new TextEncoder().encode('#!/bin/sh\necho ran\n'), mode: 0o755 },
      { path: `${wd}/a`, content: new TextEncoder().encode('onto a folder') },
    ]);
    expect(up).toEqual([{ path: `${wd}/bin.dat` }, { path: `${wd}/a/b/c/nested.txt` }, { path: `${wd}/run.sh` }, { path: `${wd}/a`, error: 'is_directory' }]);
    expect(standin.requests.slice(before).filter((r) => r.endsWith('/files/bulk-upload'))).toHaveLength(1);
    expect(await sb.execute('./run.sh; stat -c %a run.sh bin.dat', { timeoutMs: 10_000 })).toMatchObject({ output: 'ran\n755\n644\n', exitCode: 0 });

    const down = await sb.download([`${wd}/bin.dat`, `${wd}/a/b/c/nested.txt`, `${wd}/missing.txt`, `${wd}/a`]);
    expect(down[0]).toEqual({ path: `${wd}/bin.dat`, content: binary });
    expect(new TextDecoder().decode(down[1]?.content)).toBe('nested\n');
    expect(down[2]).toEqual({ path: `${wd}/missing.txt`, error: 'file_not_found' });
    expect(down[3]).toEqual({ path: `${wd}/a`, error: 'is_directory' });
    expect(standin.requests.slice(before).filter((r) => r.endsWith('/files/bulk-download'))).toHaveLength(1);
  });
});

describe('daytona failures', () => {
  it('without a key: the one line naming the variable and Settings; a saved key is enough', () => {
    let err: unknown;
    try {
      createDaytonaProvider({ env: { DAYTONA_API_URL: standin.env.DAYTONA_API_URL } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxProviderError);
    expect((err as SandboxProviderError).reason).toBe('credentials');
    expect((err as SandboxProviderError).message).toBe('Daytona needs DAYTONA_API_KEY: set it in the environment or in Settings › Sandboxes.');
    expect(createDaytonaProvider({ env: {}, saved: { DAYTONA_API_KEY: 'k' } }).name).toBe('daytona');
  });

  it('a refused key is auth', async () => {
    const wrong = createDaytonaProvider({ env: { ...standin.env, DAYTONA_API_KEY: 'not-the-key' } });
    const err = await failureOf(wrong.list());
    expect(err.reason).toBe('auth');
    expect(err.message).toBe('Daytona refused the API key (DAYTONA_API_KEY).');

    const sb = await provider.create({ labels: {} });
    standin.fail('auth');
    try {
      expect((await failureOf(sb.execute('true', { timeoutMs: 10_000 }))).reason).toBe('auth');
    } finally {
      standin.fail(null);
    }
  });

  it('a closed port is unreachable', async () => {
    const port = await freePort();
    const closed = createDaytonaProvider({ env: { DAYTONA_API_KEY: 'k', DAYTONA_API_URL: `http://127.0.0.1:${port}/api` } });
    const err = await failureOf(closed.list());
    expect(err.reason).toBe('unreachable');
    expect(err.message).toBe(`Cannot reach Daytona at http://127.0.0.1:${port}/api: connection refused.`);
  });

  it('out of quota is quota, in one line', async () => {
    standin.fail('quota');
    try {
      const err = await failureOf(provider.create({ labels: {} }));
      expect(err.reason).toBe('quota');
      expect(err.message).toMatch(/^Daytona says the account is out of quota: Total CPU limit exceeded\. Maximum allowed: 10\. /);
      expect(err.message).not.toMatch(/[\n\r]/);
    } finally {
      standin.fail(null);
    }
  });

  it('a sandbox that vanishes mid-command is gone, and the call returns', async () => {
    const sb = await provider.create({ labels: {} });
    const err = await failureOf(
      sb.execute('echo started; sleep 30', {
        timeoutMs: 30_000,
        onOutput: (c) => {
          if (c.includes('started')) standin.vanish(sb.id);
        },
      }),
    );
    expect(err.reason).toBe('gone');
    expect(err.message).toBe(`The Daytona sandbox ${sb.id} is gone (deleted or expired).`);
    expect((await failureOf(sb.download([`${sb.workdir}/x`]))).reason).toBe('gone');
    expect((await failureOf(provider.stop(sb.id))).reason).toBe('gone');
  });
});

describe('daytona execute on a toolbox without sessions', () => {
  it('runs through the plain execute call: output, exit code, cwd, and a timeout that ends the group', async () => {
    const plain = await startDaytonaStandin({ sessions: false });
    try {
      const p = createDaytonaProvider({ env: { ...plain.env } });
      const sb = await p.create({ labels: {} });
      const r = await sb.execute('echo out; echo err >&2; pwd; exit 3', { timeoutMs: 10_000 });
      expect(r).toEqual({ output: expect.stringContaining('out\n'), exitCode: 3, timedOut: false });
      expect(r.output).toContain('err\n');
      expect(r.output).toContain(`${sb.workdir}\n`);
      const slow = await sb.execute('sleep 987704 & sleep 30', { timeoutMs: 1_000 });
      expect(slow).toMatchObject({ exitCode: 124, timedOut: true });
      // The background child was ended with the group.
      await expect.poll(() => sleepingFor(sb, '987704'), { timeout: 60_000 }).toBe(0);
      expect(plain.requests.some((r) => r.includes('/process/execute'))).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
