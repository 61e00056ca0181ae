// With a TMPDIR of 120 characters every socket Deepdesk makes still fits (issue 94, item 9): the
// metering proxy's and the domain proxy's, made in run folders, were past the 107 bytes a
// socket's path has on Linux and listen() failed, so another agent's thread never started.
// Their run folders move to /tmp then, where the sandbox still hides them.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMeteringProxy } from '../acp-client/metering-proxy';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { listenOnLoopback } from '../models/testing/loopback';
import { createSandbox, detectSandbox } from './index';
import { runFoldersDir } from './run-folders';

const base = mkdtempSync('/tmp/deepdesk-long-tmpdir-');
const long = join(base, 't'.repeat(119 - base.length));
mkdirSync(long);
process.env.TMPDIR = long;
afterAll(() => rmSync(base, { recursive: true, force: true }));

const available = await detectSandbox();

/** A provider that answers every request with `upstream`. */
async function provider(): Promise<{ origin: string; close(): Promise<void> }> {
  return listenOnLoopback(createServer((req, res) => req.resume().on('end', () => res.end('upstream'))));
}

/** GET through the proxy's socket: its status and body. */
const get = (socketPath: string): Promise<string> =>
  new Promise((resolve, reject) => {
    request({ socketPath, path: '/v1/models' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += String(c))).on('end', () => resolve(`${res.statusCode} ${body}`));
    })
      .on('error', reject)
      .end();
  });

describe('a long TMPDIR', () => {
  it("the metering proxy starts in this user's run folders in /tmp, a request through its socket reaches the provider, and its folder goes with it", async () => {
    expect(Buffer.byteLength(long)).toBe(120);
    const upstream = await provider();
    const proxy = await startMeteringProxy({ upstream: upstream.origin, agent: { name: 'codex', provider: 'openai' } });
    try {
      expect(Buffer.byteLength(proxy.socket)).toBeLessThanOrEqual(107);
      expect(runFoldersDir()).toBe(`/tmp/deepdesk-runs-${process.getuid!()}`);
      expect(dirname(dirname(proxy.socket))).toBe(realpathSync(runFoldersDir()));
      expect(statSync(dirname(proxy.socket)).mode & 0o777).toBe(0o700);
      expect(await get(proxy.socket)).toBe('200 upstream');
    } finally {
      await proxy.close();
      await upstream.close();
    }
    expect(existsSync(dirname(proxy.socket))).toBe(false);
  });

  it.skipIf(!available.available)("a sandboxed command reaches its domain proxy through its socket, and not another thread's metering proxy", async () => {
    const root = realpathSync(mkdtempSync(join(long, 'sbx-')));
    const [home, project, dataDir] = ['home', 'project', 'data'].map((name) => join(root, name));
    for (const dir of [home!, project!, dataDir!]) mkdirSync(dir);
    const upstream = await provider();
    const meter = await startMeteringProxy({ upstream: upstream.origin, agent: { name: 'codex', provider: 'openai' } });
    try {
      const sandbox = await createSandbox({ projectDir: project!, dataDir: dataDir!, allowedDomains: ['allowed.invalid'] });
      const backend = new LocalShellBackend({ rootDir: project!, env: { HOME: home! }, sandbox: sandbox! });
      const result = await backend.execute(`curl -sS http://refused.invalid/; curl -sS --max-time 5 --unix-socket ${meter.socket} http://x/v1/models`, { timeoutS: 30 });
      expect(result.output).toContain("Deepdesk's sandbox blocked refused.invalid: not on this folder's allowed domains");
      expect(result.output).not.toContain('upstream');
      expect(await get(meter.socket)).toBe('200 upstream');
    } finally {
      await meter.close();
      await upstream.close();
    }
  });
});
