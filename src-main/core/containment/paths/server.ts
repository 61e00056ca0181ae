// The long-lived sandboxed server: a process the supervisor starts inside the sandbox for a
// folder (an MCP stdio server, SPEC §10). The script runs, says `ready` on stdout, and the
// server goes on running: the cases judge while it still runs, at the point where its
// effects are accepted, then it is stopped.
import { randomBytes } from 'node:crypto';
import { startProcess } from '../../sandbox/supervisor';
import { localPerson } from '../person';
import type { ExecutionPath } from '../types';
import { deferredPerson, withReady } from './deferred-person';

/** How long a server may live after its script (the cases end it long before). */
const KEEP_RUNNING_S = 100_000;

export function longLivedSandboxedServer(): ExecutionPath {
  const person = deferredPerson();
  return {
    name: 'long-lived sandboxed server (supervisor)',
    notApplicable: {
      application: 'a long-lived process has no write layer by design (SPEC §10): its writes land as it makes them, there is no application to interrupt',
      'trusted-script': 'the sandboxed server is the attacker here; a trusted script is run by the hook path (unsandboxed servers’ scripts: same rule, not wired here)',
    },
    person,
    async setUp(env) {
      person.set(localPerson(env));
    },
    async tearDown() {},
    async run(scene, script, { timeoutS }) {
      const said = `ready-${randomBytes(6).toString('hex')}`;
      const body = `${withReady(script, `printf '\\n%s\\n' ${said}`)}\nready\nexec sleep ${KEEP_RUNNING_S}`;
      const server = await startProcess({ command: '/bin/sh', args: ['-c', body], cwd: scene.project, env: {}, sandbox: { projectDir: scene.project, dataDir: scene.dataDir } });
      let stdout = '';
      server.stdout.setEncoding('utf8');
      const readyOrGone = new Promise<'ready' | 'exited'>((resolve) => {
        server.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.includes(said)) resolve('ready');
        });
        void server.exited.then(() => resolve('exited'));
      });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutS * 1000)));
      const state = await Promise.race([readyOrGone, timedOut]);
      clearTimeout(timer);
      if (state !== 'ready') {
        await server.stop();
        throw new Error(`the server ${state === 'timeout' ? 'never said ready' : 'ended before it said ready'}: ${stdout}\n${server.logTail()}`);
      }
      // Where a server's effects are accepted (each answer of its, hub.ts): the rule must hold
      // there whatever the watch has seen meanwhile (live-git-guard.test.ts covers the watch).
      const check = await server.checkEffects();
      return { output: `${stdout.replace(said, '')}\n${server.logTail()}\n${check.blockedLine ?? ''}`, end: () => server.stop() };
    },
  };
}
