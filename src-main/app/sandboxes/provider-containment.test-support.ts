// The containment conformance suite (core/containment/suite.ts) on the sandbox provider path
// (SPEC §18): the agent's `execute` in a sandbox place as the app opens one (openSandboxPlace:
// the folder goes up, the command runs in the provider's sandbox, what it changed comes back to
// the folder through the layer check), with each provider's adapter and its official SDK over
// that provider's stand-in (one test file per provider: provider-*.conformance.test.ts). Judged by effect on this machine, as for every path: what came back must
// run nothing of the attacker's, reach nothing outside the folder, copy no secret.
//
// What this path shows is the bring-back: the stand-in's box, like a provider's sandbox, has
// none of this machine's files, sockets or processes, so the secrets, socket and marker cases
// show that nothing of them reaches the box through the upload or the wire, not a sandbox
// policy of Deepdesk's.

import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, vi } from 'vitest';
import type { ContainmentCase } from '../../core/containment/case';
import { kindOf, readText } from '../../core/containment/effects';
import { localPerson } from '../../core/containment/person';
import { deferredPerson, withReady } from '../../core/containment/paths/deferred-person';
import { runContainmentConformance } from '../../core/containment/suite';
import type { ExecutionPath, Scene } from '../../core/containment/types';
import type { ProviderCredentials, SandboxProvider, SandboxProviderName } from '../../core/sandbox-providers/provider';
import type { ProviderStandin } from '../../core/sandbox-providers/testing/standin';
import { openSandboxPlace, type OpenedSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

/** One provider's adapter over its stand-in. */
export interface StandinProvider {
  /** `Daytona`, as the path's name says it. */
  label: string;
  name: SandboxProviderName;
  start(): Promise<ProviderStandin>;
  adapter(credentials: ProviderCredentials): SandboxProvider;
  /** The SDK reads its endpoint from process.env only (Modal). */
  stubProcessEnv?: boolean;
}

function providerSandboxedCommand(standinProvider: StandinProvider): ExecutionPath {
  const person = deferredPerson();
  let standin: ProviderStandin | undefined;
  let provider: SandboxProvider | undefined;
  let db: Database.Database | undefined;
  let store: SandboxStore | undefined;
  // One place per scene, as the app holds one while the folder is open.
  const places = new Map<Scene, Promise<OpenedSandboxPlace>>();

  const close = async (scene: Scene): Promise<void> => {
    const opening = places.get(scene);
    if (!opening) return;
    places.delete(scene);
    const place = await opening;
    await place.close();
    await provider?.remove(place.sandbox.id).catch(() => undefined);
  };

  return {
    name: `sandbox provider command (${standinProvider.label} stand-in, brought back to the folder)`,
    notApplicable: {
      'trusted-script': 'a command runs no configuration entry (hooks and servers of a sandbox folder run on this computer)',
    },
    notApplicableCases: {
      'the data folder around the worktree (deepdesk.db, host/token, secrets, a transcript, another worktree) can be neither read nor listed; git status and diff work':
        'the sandbox holds the worktree’s files without its .git (SPEC §18), so the git work the case needs as its proof cannot run there; that the data folder never goes up is folder-transfer.test.ts’s',
    },
    person,
    async setUp(env) {
      person.set(localPerson(env));
      standin = await standinProvider.start();
      if (standinProvider.stubProcessEnv) for (const [k, v] of Object.entries(standin.env)) vi.stubEnv(k, v);
      provider = standinProvider.adapter({ env: { ...standin.env } });
      db = new Database(':memory:');
      store = new SandboxStore(db);
    },
    async tearDown() {
      for (const scene of [...places.keys()]) await close(scene).catch(() => undefined);
      db?.close();
      if (standinProvider.stubProcessEnv) vi.unstubAllEnvs();
      await standin?.close();
    },
    async run(scene, script, { timeoutS }) {
      if (!provider || !store) throw new Error('the path was not set up');
      let opening = places.get(scene);
      if (!opening) {
        const record = store.put({ folder: scene.project, worktree: 'w', provider: standinProvider.name });
        opening = openSandboxPlace({
          record,
          store,
          dataDir: scene.dataDir,
          env: process.env,
          settings: () => ({}),
          savedKeys: async () => ({}),
          say: () => undefined,
          provider,
        });
        places.set(scene, opening);
      }
      const place = await opening;
      const result = await place.shell.execute(withReady(script), { timeoutS });
      return { output: result.output, ...(result.sandboxBlocked ? { blocked: result.sandboxBlocked } : {}), end: () => close(scene) };
    },
  };
}

/** Connections that reached the planted 127.0.0.1 listener, per scene (the act counts, the check judges). */
const loopbackConnections = new Map<string, number>();

// This path's own cases: by effect on this machine, what a command in the sandbox could reach here.
const machineCases: readonly ContainmentCase[] = [
  {
    group: 'secrets',
    name: "a program on this machine (the marker, by its path) cannot be run from the sandbox",
    scripts: (s) => [[`${s.fire} direct`, `sh ${s.fire} by-sh`, `bash -c '${s.fire} nested'`, 'echo tried > tried.txt', 'ready'].join('\n')],
    async check({ person, scene }) {
      expect(await readText(person, scene, 'tried.txt'), 'the script ran').toBe('tried\n');
      expect(await readText(person, scene, scene.fired), 'the marker program ran').toBe('');
    },
  },
  {
    group: 'secrets',
    name: 'a listening socket on 127.0.0.1 of this machine gets no connection from the sandbox',
    async act({ scene, path }) {
      let count = 0;
      const server = createServer((c) => {
        count++;
        c.destroy();
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        const script = [
          'command -v bash python3 node nc curl > weapons.txt 2>/dev/null',
          `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>/dev/null`,
          `python3 -c "import socket; c=socket.create_connection(('127.0.0.1', ${port}), 2); c.sendall(b'hi')" 2>/dev/null`,
          `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', function () { this.end('hi'); }).on('error', () => {})" 2>/dev/null`,
          `printf hi | nc -w1 127.0.0.1 ${port} 2>/dev/null`,
          `curl -s -m 2 http://127.0.0.1:${port}/ 2>/dev/null`,
          'ready',
        ].join('\n');
        return [await path.run(scene, script, { timeoutS: 60 })];
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        loopbackConnections.set(scene.token, count);
      }
    },
    async check({ person, scene }) {
      expect(await readText(person, scene, 'weapons.txt'), 'a program that can connect').not.toBe('');
      expect(loopbackConnections.get(scene.token), 'connections that reached the 127.0.0.1 listener').toBe(0);
    },
  },
  {
    group: 'application',
    name: 'names the sandbox chose (line breaks, look-alikes of the listing) make nothing outside the folder when changes come back',
    scripts: (s) => {
      const target = `${'../'.repeat(40)}${s.outside.slice(1)}/escaped`;
      return [
        [
          `T='${target}'`,
          `ln -s "$T" "$(printf 'x\\ny')"`,
          `ln -s "$T" "$(printf 'z\\nw')"`,
          `mkdir -p "$(printf 'd\\n1 1 ..')" && echo evil > "$(printf 'd\\n1 1 ..')/escaped"`,
          'echo plain > plain.txt',
          'ready',
        ].join('\n'),
      ];
    },
    async check({ person, scene }) {
      expect(await readText(person, scene, 'plain.txt'), 'the script ran and its change came back').toBe('plain\n');
      expect(await kindOf(person, scene, `${scene.outside}/escaped`), 'made outside the folder').toBe('missing');
      expect(await kindOf(person, scene, `${path.dirname(scene.project)}/escaped`), 'made beside the folder').toBe('missing');
    },
  },
];

/** The containment suite, with this path's own cases, on one provider's adapter over its stand-in. */
export function runProviderContainment(standinProvider: StandinProvider): void {
  runContainmentConformance(providerSandboxedCommand(standinProvider), machineCases);
}
