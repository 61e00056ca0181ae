// The Deno adapter, and so the real @deno/sandbox SDK, against the local stand-in of Deno
// Deploy's sandbox API (testing/deno-standin.ts). No test contacts the internet.

import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderSandbox, SandboxProvider } from '../provider';
import { SandboxProviderError } from '../provider';
import { startDenoStandin } from '../testing/deno-standin';
import type { ProviderStandin } from '../testing/standin';
import { createDenoProvider, denoFailure, DENO_WORKDIR } from './deno-provider';

let standin: ProviderStandin;
let provider: SandboxProvider;
const open: ProviderSandbox[] = [];

beforeAll(async () => {
  standin = await startDenoStandin();
  provider = createDenoProvider({ env: { ...standin.env } });
});
afterEach(async () => {
  standin.fail(null);
  for (const sb of open.splice(0)) await sb.close();
});
afterAll(async () => {
  await standin?.close();
});

async function create(labels: Record<string, string> = { thread: 't1' }): Promise<ProviderSandbox> {
  const sb = await provider.create({ labels });
  open.push(sb);
  return sb;
}

async function failure(work: Promise<unknown>): Promise<SandboxProviderError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxProviderError);
  return err as SandboxProviderError;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the Deno provider over @deno/sandbox, against the stand-in', () => {
  it('creates a labelled sandbox with its workdir, lists only Deepdesk’s, reattaches, stops and removes', async () => {
    const sb = await create({ thread: 't1' });
    expect(sb.id).toMatch(/^sbx_ord_[0-9a-hjkmnp-z]{20}$/);
    expect(sb.workdir).toBe(DENO_WORKDIR);
    // A sandbox someone made without Deepdesk's label is not listed.
    const { Sandbox } = await import('@deno/sandbox');
    const theirs = await Sandbox.create({ token: standin.env.DENO_DEPLOY_TOKEN, sandboxEndpoint: standin.env.DENO_SANDBOX_ENDPOINT, timeout: '5m', labels: { other: 'x' } });
    await theirs.close();
    const listed = await provider.list();
    expect(listed.map((s) => s.id)).toContain(sb.id);
    expect(listed.map((s) => s.id)).not.toContain(theirs.id);
    // A server that drops the label filter lists everyone's: Deepdesk still shows only its own.
    standin.ignoreListFilter(true);
    try {
      expect((await provider.list()).map((s) => s.id)).not.toContain(theirs.id);
      expect((await provider.list()).map((s) => s.id)).toContain(sb.id);
    } finally {
      standin.ignoreListFilter(false);
    }
    expect(listed.find((s) => s.id === sb.id)).toMatchObject({ provider: 'deno', state: 'running', labels: { deepdesk: '1', thread: 't1' } });

    await sb.upload([{ path: `${DENO_WORKDIR}/kept.txt`, content: Buffer.from('kept\n') }]);
    await sb.close();
    // A closed connection leaves the sandbox running (it has a duration, not "session").
    const again = await provider.attach(sb.id);
    open.push(again);
    expect((await again.execute('cat kept.txt', { timeoutMs: 10_000 })).output).toBe('kept\n');

    await provider.stop(sb.id);
    expect((await provider.list()).map((s) => s.id)).not.toContain(sb.id);
    expect((await failure(provider.attach(sb.id))).reason).toBe('gone');

    const other = await create();
    await provider.remove(other.id);
    expect(standin.boxes.has(other.id)).toBe(false);
    expect(await failure(provider.remove(other.id))).toMatchObject({ reason: 'gone', message: `The Deno sandbox ${other.id} is gone (deleted or expired).` });
  });

  it('runs a command: stdout and stderr, exit code, the workdir or a given cwd, output as it comes', async () => {
    const sb = await create();
    const r = await sb.execute('pwd; echo err >&2; exit 3', { timeoutMs: 10_000 });
    expect(r).toEqual({ output: `${DENO_WORKDIR}\nerr\n`, exitCode: 3, timedOut: false });
    const seen: string[] = [];
    const inTmp = await sb.execute('pwd; printf "é\\n"', { cwd: '/tmp', timeoutMs: 10_000, onOutput: (c) => seen.push(c) });
    expect(inTmp).toEqual({ output: '/tmp\né\n', exitCode: 0, timedOut: false });
    expect(seen.join('')).toBe('/tmp\né\n');
  });

  it('ends the whole process tree at the timeout (124), and on abort (null)', async () => {
    const sb = await create();
    // The background child writes `late` once `go` exists: only if it outlived the timeout.
    const tree = `echo start; (while [ ! -e ${DENO_WORKDIR}/go ]; do sleep 0.05; done; touch ${DENO_WORKDIR}/late) & sleep 30`;
    const timedOut = await sb.execute(tree, { timeoutMs: 500 });
    expect(timedOut).toEqual({ output: 'start\n', exitCode: 124, timedOut: true });

    const controller = new AbortController();
    let output = '';
    const aborted = sb.execute(tree, { timeoutMs: 30_000, signal: controller.signal, onOutput: (c) => (output += c) });
    await expect.poll(() => output, { timeout: 60_000 }).toBe('start\n');
    controller.abort();
    expect(await aborted).toEqual({ output: 'start\n', exitCode: null, timedOut: false });

    await sb.upload([{ path: `${DENO_WORKDIR}/go`, content: new Uint8Array() }]);
    // Ten times the children's polling interval: a survivor would have written `late` by now.
    await sb.execute('sleep 0.5', { timeoutMs: 10_000 });
    expect((await sb.download([`${DENO_WORKDIR}/late`]))[0]).toEqual({ path: `${DENO_WORKDIR}/late`, error: 'file_not_found' });
  });

  it('uploads and downloads a batch through the file API: binary, nested folders, modes, big files; per-file errors', async () => {
    const sb = await create();
    const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
    const big = Uint8Array.from({ length: 5 * 1024 * 1024 + 3 }, (_, i) => (i * 31) % 251);
    await sb.upload([{ path: `${DENO_WORKDIR}/plain.txt`, content: Buffer.from('plain') }]);
    const before = standin.requests.length;
    const up = await sb.upload([
      { path: `${DENO_WORKDIR}/bin.dat`, content: binary },
      { path: `${DENO_WORKDIR}/a/b/c/nested.txt`, content: Buffer.from('nested\n') },
      { path: `${DENO_WORKDIR}/tool.sh`, content: Buffer.from('#!/bin/sh\necho ran\n'), mode: 0o755 },
      { path: `${DENO_WORKDIR}/big.bin`, content: big },
      { path: `${DENO_WORKDIR}/a`, content: Buffer.from('a folder is there') },
      { path: `${DENO_WORKDIR}/plain.txt/under-a-file`, content: Buffer.from('x') },
    ]);
    expect(up).toEqual([
      { path: `${DENO_WORKDIR}/bin.dat` },
      { path: `${DENO_WORKDIR}/a/b/c/nested.txt` },
      { path: `${DENO_WORKDIR}/tool.sh` },
      { path: `${DENO_WORKDIR}/big.bin` },
      { path: `${DENO_WORKDIR}/a`, error: 'is_directory' },
      { path: `${DENO_WORKDIR}/plain.txt/under-a-file`, error: 'invalid_path' },
    ]);
    // Contents went through the file API, never a command line.
    const sent = standin.requests.slice(before);
    expect(sent).not.toContain('spawn');
    expect(sent.filter((r) => r === 'writeFile').length).toBeGreaterThanOrEqual(4);

    const ran = await sb.execute('./tool.sh; stat -c %a tool.sh', { timeoutMs: 10_000 });
    expect(ran.output).toBe('ran\n755\n');

    const down = await sb.download([`${DENO_WORKDIR}/bin.dat`, `${DENO_WORKDIR}/a/b/c/nested.txt`, `${DENO_WORKDIR}/big.bin`, `${DENO_WORKDIR}/missing`, `${DENO_WORKDIR}/a`]);
    expect(Buffer.from(down[0]!.content!).equals(Buffer.from(binary))).toBe(true);
    expect(Buffer.from(down[1]!.content!).toString()).toBe('nested\n');
    expect(Buffer.from(down[2]!.content!).equals(Buffer.from(big))).toBe(true);
    expect(down.slice(3)).toEqual([
      { path: `${DENO_WORKDIR}/missing`, error: 'file_not_found' },
      { path: `${DENO_WORKDIR}/a`, error: 'is_directory' },
    ]);
  });

  it('says in one line which variable is missing, and takes a saved key', () => {
    expect(() => createDenoProvider({ env: {} })).toThrow(new SandboxProviderError('Deno needs DENO_DEPLOY_TOKEN: set it in the environment or in Settings › Sandboxes.', 'credentials', 'deno'));
    expect(() => createDenoProvider({ env: { DENO_DEPLOY_TOKEN: '' }, saved: {} })).toThrow('Deno needs DENO_DEPLOY_TOKEN: set it in the environment or in Settings › Sandboxes.');
    // A personal token does not name its organization.
    expect(() => createDenoProvider({ env: { DENO_DEPLOY_TOKEN: 'ddp_personal' } })).toThrow('Deno needs DENO_DEPLOY_ORG: set it in the environment or in Settings › Sandboxes.');
    expect(createDenoProvider({ env: {}, saved: { DENO_DEPLOY_TOKEN: 'ddo_saved' } }).name).toBe('deno');
  });

  it('names a refused key, an unreachable service and an exhausted quota', async () => {
    const refused = createDenoProvider({ env: { ...standin.env, DENO_DEPLOY_TOKEN: 'ddo_wrong' } });
    expect(await failure(refused.create({ labels: {} }))).toMatchObject({ reason: 'auth', message: 'Deno Deploy refused the token (DENO_DEPLOY_TOKEN).' });
    expect((await failure(refused.list())).reason).toBe('auth');

    standin.fail('auth');
    expect((await failure(provider.create({ labels: {} }))).reason).toBe('auth');
    standin.fail('quota');
    const quota = await failure(provider.create({ labels: {} }));
    expect(quota).toMatchObject({ reason: 'quota', message: 'Deno Deploy says the account is out of quota: The organization has reached its limit of concurrent sandboxes.' });
    standin.fail(null);

    const port = await closedPort();
    const down = createDenoProvider({ env: { DENO_DEPLOY_TOKEN: 'ddo_x', DENO_SANDBOX_ENDPOINT: `http://127.0.0.1:${port}`, DENO_DEPLOY_ENDPOINT: `http://127.0.0.1:${port}` } });
    expect(await failure(down.create({ labels: {} }))).toMatchObject({ reason: 'unreachable', message: `Cannot reach Deno Deploy at http://127.0.0.1:${port}: connection refused.` });
    expect(await failure(down.list())).toMatchObject({ reason: 'unreachable', message: `Cannot reach Deno Deploy at http://127.0.0.1:${port}: connection refused.` });
  });

  it('says the sandbox is gone when it vanishes mid-command, and on every later call', async () => {
    const sb = await create();
    let output = '';
    const running = sb.execute('echo started; sleep 30', { timeoutMs: 60_000, onOutput: (c) => (output += c) });
    await expect.poll(() => output, { timeout: 60_000 }).toBe('started\n');
    standin.vanish(sb.id);
    expect(await failure(running)).toMatchObject({ reason: 'gone', message: `The Deno sandbox ${sb.id} is gone (deleted or expired).` });
    expect((await failure(sb.execute('true', { timeoutMs: 10_000 }))).reason).toBe('gone');
    expect((await failure(sb.download([`${DENO_WORKDIR}/x`]))).reason).toBe('gone');
    expect((await failure(provider.attach(sb.id))).reason).toBe('gone');
  });
});

describe('the Deno provider’s failure words', () => {
  it('keeps what the server said short and on one line, with its controls shown, not obeyed', async () => {
    const { ConnectionEstablishmentError } = await import('@deno/sandbox');
    const said = new ConnectionEstablishmentError(429, 'QUOTA_EXCEEDED', `\x1b[2J\x1b]0;owned\x07over\nlimit ${'x'.repeat(1000)}`, 'trace');
    const err = denoFailure(said, { endpoint: 'https://ord.sandbox-api.deno.net' });
    expect(err.reason).toBe('quota');
    expect([...err.message].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)).toBe(false);
    expect(err.message.startsWith('Deno Deploy says the account is out of quota: \\x1b[2J')).toBe(true);
    expect(err.message.length).toBeLessThan(400);
  });
});
