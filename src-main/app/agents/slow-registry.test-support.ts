// A local stand-in for the npm registry that serves one known agent's pinned package (its
// package.json and its script, nothing else), holding the package's tarball back until the test
// releases it: an install that takes as long as the test needs, on no network.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KnownAgent } from './vendors/catalog';

export interface SlowRegistry {
  /** The registry's URL (npm_config_registry). */
  url: string;
  /** Whether npm has asked for the tarball (the install is under way, held). */
  readonly tarballAsked: boolean;
  /** Sends the held tarball (and every later one at once). */
  release(): void;
  /** npm's environment for this registry: its URL and a cache of its own. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSlowRegistry(agent: Pick<KnownAgent, 'packageName' | 'version' | 'script'>): Promise<SlowRegistry> {
  const root = mkdtempSync(join(tmpdir(), 'slow-registry-'));
  const pkg = join(root, 'package');
  mkdirSync(dirname(join(pkg, agent.script)), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: agent.packageName, version: agent.version, main: agent.script }));
  writeFileSync(join(pkg, agent.script), "process.stdout.write('');\n");
  execFileSync('tar', ['-czf', join(root, 'package.tgz'), '-C', root, 'package']);
  const tarball = readFileSync(join(root, 'package.tgz'));
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  let released = false;
  let asked = false;
  const held: Array<() => void> = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? '/');
    if (path === `/${agent.packageName}`) {
      const version = { name: agent.packageName, version: agent.version, dist: { tarball: `${url}/package.tgz`, integrity, shasum } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: agent.packageName, 'dist-tags': { latest: agent.version }, versions: { [agent.version]: version } }));
      return;
    }
    if (path === '/package.tgz') {
      asked = true;
      const send = (): void => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.length });
        res.end(tarball);
      };
      if (released) send();
      else held.push(send);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get tarballAsked() {
      return asked;
    },
    release() {
      released = true;
      for (const send of held.splice(0)) send();
    },
    env: { npm_config_registry: url, npm_config_cache: join(root, 'cache'), npm_config_update_notifier: 'false' },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // An npm still running (a test that failed mid-install) may write its cache meanwhile.
      try {
        rmSync(root, { recursive: true, force: true, maxRetries: 5 });
      } catch {
        // left in the temporary folder
      }
    },
  };
}
