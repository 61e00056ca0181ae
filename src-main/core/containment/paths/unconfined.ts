// Not a product path: the script run as it is (sh in the folder, with Deepdesk's whole
// environment, only the shell killed at the time limit). Every attack must land here; that
// is what shows a case's check can see its attack (see attacks-land.test.ts).
import { spawn } from 'node:child_process';
import { localPerson } from '../person';
import type { ExecutionPath } from '../types';
import { deferredPerson, withReady } from './deferred-person';

export function unconfinedShell(): ExecutionPath {
  const person = deferredPerson();
  return {
    name: 'unconfined shell (reference)',
    notApplicable: { 'trusted-script': 'no configuration entry runs here' },
    person,
    async setUp(env) {
      person.set(localPerson(env));
    },
    async tearDown() {},
    run(scene, script, { timeoutS }) {
      return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', withReady(script)], { cwd: scene.project, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutS * 1000);
        // 'exit', not 'close': what it left in the background may hold the pipes.
        child.once('exit', () => {
          clearTimeout(timer);
          resolve({ output, end: async () => undefined });
        });
      });
    },
  };
}
