// `deepdesk host --listen` and its key flags through the built CLI (SPEC §19): the URL it
// prints, the key a client sends (printed, rotated: the old one fails at once), loopback
// unless allowed, CORS for listed origins only, Settings › Agent Protocol, and a host that
// already runs listening for as long as the command does.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../app/base/data-dir';
import { openDatabase } from '../core/backends/store/store';
import { HostRuns } from '../app/host/runs';
import { json, type Route } from '../app/adapters/agent-protocol/http';
import { listenProtocol } from '../app/adapters/agent-protocol/listen';
import { NO_SECRETS } from '../app/settings/settings-service';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';
import { alive, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('host-listen');

interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `deepdesk ARGS…` left running (a host, a --listen attached to one). */
function start(args: string[]): Running {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: t.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function urlOf(running: Running): Promise<string> {
  await waitFor(() => /Agent Protocol: http:\/\/\S+\n/.test(running.stdout()) || running.child.exitCode !== null, 30_000, 'the Agent Protocol URL');
  const url = /Agent Protocol: (http:\/\/\S+)\n/.exec(running.stdout())?.[1];
  if (url === undefined) throw new Error(`no URL; stderr: ${running.stderr()}`);
  return url;
}

async function stopped(running: Running): Promise<number | null> {
  if (running.child.exitCode === null) running.child.kill('SIGINT');
  return running.exited;
}

describe('deepdesk host --listen', () => {
  it('prints the URL (port 0: the real port) and serves the protocol: an unknown path is 404, no route answers 403 to a key-less /ok', async () => {
    const host = start(['host', '--listen', '127.0.0.1:0']);
    try {
      const url = await urlOf(host);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const unknown = await fetch(`${url}/no/such/route`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ detail: 'Not Found' });
      // `/ok` is open (SPEC §19): never refused for want of the key.
      expect((await fetch(`${url}/ok`)).status).not.toBe(403);
    } finally {
      expect(await stopped(host)).toBe(0);
    }
  });

  it('refuses an address other computers reach without --allow-remote, in one line, and takes it with it', async () => {
    const refused = await t.deepdesk(['host', '--listen', '0.0.0.0:0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'deepdesk host: --listen 0.0.0.0:0: 0.0.0.0 is not a loopback address (127.0.0.1, ::1, localhost): other computers could connect to it; add --allow-remote to allow that\n',
    );
    expect(refused.stdout).toBe('');
    expect((await t.deepdesk(['host', '--allow-remote'])).stderr).toContain('--allow-remote goes with --listen');
    expect((await t.deepdesk(['host', '--listen', 'nonsense'])).code).toBe(2);
    const remote = start(['host', '--listen', '0.0.0.0:0', '--allow-remote']);
    try {
      expect(await urlOf(remote)).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    } finally {
      await stopped(remote);
    }
  });

  it('answers a CORS preflight from a listed origin only', async () => {
    const host = start(['host', '--listen', '127.0.0.1:0', '--cors-origin', 'http://localhost:3000', '--cors-origin', 'https://app.example']);
    try {
      const url = await urlOf(host);
      const preflight = (origin: string) =>
        fetch(`${url}/threads`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' } });
      const allowed = await preflight('http://localhost:3000');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
      expect(allowed.headers.get('access-control-allow-headers')).toContain('x-api-key');
      const other = await preflight('http://evil.example');
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      // The refusal says which origin and how to allow it, in the reply and in what `host --listen` prints (its log).
      const said = ((await other.json()) as { detail: string }).detail;
      expect(said).toContain('"http://evil.example"');
      expect(said).toContain('--cors-origin "http://evil.example"');
      expect(said).toContain('Settings › Agent Protocol › Allowed browser origins');
      await waitFor(() => host.stderr().includes('The browser origin "http://evil.example" is not allowed'), 10_000, 'the refusal in the output');
      expect((await t.deepdesk(['host', '--listen', '0', '--cors-origin', 'localhost:3000'])).stderr).toContain("'localhost:3000' is not an origin");
    } finally {
      await stopped(host);
    }
  });

  it('--print-key gives the key a client sends; --rotate-key replaces it and the old one fails at once', async () => {
    const printed = await t.deepdesk(['host', '--print-key']);
    expect(printed.code).toBe(0);
    const key = printed.stdout.trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await t.deepdesk(['host', '--print-key'])).stdout.trim()).toBe(key);
    // The key as a listening host checks it, through the host's own wiring (a keyed route of this test's).
    const db = openDatabase(databasePath(t.dataDir));
    const runs = new HostRuns({ dataDir: t.dataDir, db, version: 'test', secrets: NO_SECRETS });
    const probe: Route = { method: 'GET', pattern: '/probe', handle: async () => json({ ok: true }) };
    const server = await listenProtocol(
      { dataDir: t.dataDir, db, runs, env: {}, version: 'test', log: () => {}, openedBefore: () => false },
      { listen: '127.0.0.1:0' },
      () => [probe],
    );
    try {
      const status = async (apiKey?: string) => (await fetch(`${server.url}/probe`, apiKey === undefined ? {} : { headers: { 'x-api-key': apiKey } })).status;
      expect(await status()).toBe(403);
      expect(await status('wrong')).toBe(403);
      expect(await status(key)).toBe(200);
      const rotated = await t.deepdesk(['host', '--rotate-key']);
      expect(rotated.code).toBe(0);
      const fresh = rotated.stdout.trim();
      expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fresh).not.toBe(key);
      expect(await status(key)).toBe(403);
      expect(await status(fresh)).toBe(200);
      expect((await t.deepdesk(['host', '--print-key'])).stdout.trim()).toBe(fresh);
    } finally {
      await server.close();
      await runs.close();
      db.close();
    }
  });

  it('Settings › Agent Protocol: a host given no --listen listens as saved; one saved wrong says why in its log and serves its socket', async () => {
    mkdirSync(t.dataDir, { recursive: true });
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agentProtocol: { listen: '127.0.0.1:0', allowRemote: false, corsOrigins: [] } }));
    const host = start(['host']);
    try {
      const url = await urlOf(host);
      expect((await fetch(`${url}/none`)).status).toBe(404);
    } finally {
      expect(await stopped(host)).toBe(0);
    }
    // Checked when saved too; a hand-edited file that asks for a remote address without allowing it listens nowhere.
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agentProtocol: { listen: '0.0.0.0:0', allowRemote: false, corsOrigins: [] } }));
    const refusing = start(['host']);
    try {
      await waitFor(() => /Settings › Agent Protocol: .*not a loopback address/.test(refusing.stderr()), 30_000, 'the refusal in the log');
      expect(refusing.stderr()).toContain('host up: pid');
      expect(refusing.stdout()).toBe('');
    } finally {
      await stopped(refusing);
    }
  });

  it("Settings › Agent Protocol's Folder is the runs' folder when a request names none (as Deep Agents' async subagents send them)", async () => {
    mkdirSync(t.dataDir, { recursive: true });
    const saved = { listen: '127.0.0.1:0', allowRemote: false, corsOrigins: [] };
    /** The refusal of a run naming no folder and no message: the folder is checked first. */
    const refusal = async (url: string): Promise<string> => {
      const key = readFileSync(join(t.dataDir, 'host', 'protocol-key'), 'utf8').trim();
      const reply = await fetch(`${url}/runs/wait`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ assistant_id: 'deepdesk', input: {} }) });
      expect(reply.status).toBe(422);
      return ((await reply.json()) as { detail: string }).detail;
    };
    for (const [settings, expected] of [
      [saved, /^No folder to work in/],
      [{ ...saved, folder: t.folder }, /^input\.messages/],
    ] as const) {
      writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agentProtocol: settings }));
      const host = start(['host']);
      try {
        expect(await refusal(await urlOf(host))).toMatch(expected);
      } finally {
        expect(await stopped(host)).toBe(0);
      }
    }
  });

  it("--listen takes Settings' Default folder when --folder names none; with neither, a run naming none is told both", async () => {
    mkdirSync(t.dataDir, { recursive: true });
    const refusal = async (url: string): Promise<string> => {
      const key = readFileSync(join(t.dataDir, 'host', 'protocol-key'), 'utf8').trim();
      const reply = await fetch(`${url}/runs/wait`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ assistant_id: 'deepdesk', input: {} }) });
      expect(reply.status).toBe(422);
      return ((await reply.json()) as { detail: string }).detail;
    };
    for (const [settings, expected] of [
      [{}, /Settings › Agent Protocol › Default folder.*--folder/],
      [{ agentProtocol: { listen: '', allowRemote: false, corsOrigins: [], folder: t.folder } }, /^input\.messages/],
    ] as const) {
      writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify(settings));
      const host = start(['host', '--listen', '127.0.0.1:0']);
      try {
        expect(await refusal(await urlOf(host))).toMatch(expected);
      } finally {
        expect(await stopped(host)).toBe(0);
      }
    }
  });

  it('refuses a flag it would not apply (--model, --base-url), saying who takes it; so does every command that does not take a flag', async () => {
    for (const flag of ['--model', '--base-url']) {
      const refused = await t.deepdesk(['host', '--listen', '127.0.0.1:0', flag, 'x']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`deepdesk host: host does not take ${flag}: it would not apply it (run, serve, acp take it)`);
      expect(refused.stdout).toBe('');
    }
    const agents = await t.deepdesk(['agents', '--folder', t.folder]);
    expect(agents.code).toBe(2);
    expect(agents.stderr).toContain('agents does not take --folder');
    expect((await t.deepdesk(['usage', '--model', 'openai:gpt-4o'])).stderr).toContain('usage does not take --model');
    expect((await t.deepdesk(['host', '--no-such-flag'])).stderr).toContain("Unknown option '--no-such-flag'");
  });

  it('a second --listen on an address the host serves says it already listens there (exit 0); a port another program holds is said so', async () => {
    const host = start(['host', '--idle-seconds', '120', '--listen', '127.0.0.1:0']);
    const { createServer } = await import('node:net');
    const other = createServer();
    try {
      const url = await urlOf(host);
      const again = await t.deepdesk(['host', '--listen', new URL(url).host]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`already listening on ${new URL(url).host}`);
      expect(again.stderr).not.toContain('EADDRINUSE');
      // The first listener is untouched.
      expect((await fetch(`${url}/nothing`)).status).toBe(404);

      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const taken = (other.address() as { port: number }).port;
      const held = await t.deepdesk(['host', '--listen', `127.0.0.1:${taken}`]);
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`another program already listens on 127.0.0.1:${taken} (not this data folder's agent host)`);
    } finally {
      other.close();
      expect(await stopped(host)).toBe(0);
    }
  });

  it('a host already running listens while `deepdesk host --listen` runs; its Ctrl-C stops the listening, not the host', async () => {
    const host = start(['host', '--idle-seconds', '120']);
    try {
      await waitFor(() => /host up: pid/.test(host.stderr()), 30_000, 'the host up');
      const attached = start(['host', '--listen', '127.0.0.1:0', '--folder', t.folder]);
      const url = await urlOf(attached);
      expect((await fetch(`${url}/nothing`)).status).toBe(404);
      await waitFor(() => host.stderr().includes(`Agent Protocol: listening on ${url}`), 10_000, 'the host listening');
      // A refused browser origin is said in this command's output too, not only in the running host's log.
      const refused = await fetch(`${url}/threads`, { method: 'OPTIONS', headers: { origin: 'http://other.example', 'access-control-request-method': 'POST' } });
      expect(refused.status).toBe(403);
      await waitFor(() => attached.stderr().includes('The browser origin "http://other.example" is not allowed'), 10_000, "the refusal in host --listen's output");
      expect(host.stderr()).toContain('The browser origin "http://other.example" is not allowed');
      expect(await stopped(attached)).toBe(0);
      await waitFor(() => host.stderr().includes(`Agent Protocol: stopped listening on ${url}`), 10_000, 'the host to stop listening');
      await expect(fetch(`${url}/nothing`)).rejects.toThrow();
      expect(host.child.exitCode).toBeNull();
      expect(alive(host.child.pid!)).toBe(true);
      expect(readFileSync(join(t.dataDir, 'host', 'protocol-key'), 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      expect(await stopped(host)).toBe(0);
    }
  });
});

