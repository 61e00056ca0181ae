// The local sandboxed command: the agent's `execute` on a local folder (LocalShellBackend in a
// pty, inside the sandbox createSandbox makes for the folder's policy, as the app assembles it).
import { LocalShellBackend } from '../../backends/filesystem/local-shell';
import { createSandbox } from '../../sandbox/index';
import { folderSandboxPolicy } from '../../sandbox/protected-entry-files';
import type { Sandbox } from '../../sandbox/types';
import { localPerson } from '../person';
import type { ExecutionPath, Scene } from '../types';
import { deferredPerson, withReady } from './deferred-person';

export function localSandboxedCommand(): ExecutionPath {
  const person = deferredPerson();
  // One sandbox per folder, as the app has (it remembers the folder's repositories between runs).
  const sandboxes = new WeakMap<Scene, Sandbox>();
  return {
    name: 'local sandboxed command',
    notApplicable: {
      'trusted-script': 'a command runs no configuration entry (this path is the hook path’s neighbour in that case)',
    },
    person,
    async setUp(env) {
      person.set(localPerson(env));
    },
    async tearDown() {},
    async run(scene, script, { timeoutS }) {
      let sandbox = sandboxes.get(scene);
      if (!sandbox) {
        // As the app assembles it: what the folder's and the person's entries run is read-only.
        sandbox = await createSandbox(folderSandboxPolicy({ projectDir: scene.project, dataDir: scene.dataDir }, scene.home));
        if (!sandbox) throw new Error('no sandbox on this machine: the local path cannot be tested');
        sandboxes.set(scene, sandbox);
      }
      const backend = new LocalShellBackend({ rootDir: scene.project, sandbox });
      const result = await backend.execute(withReady(script), { timeoutS });
      if (result.sandboxed !== true) throw new Error(`the command did not run sandboxed: ${result.output}`);
      return { output: result.output, ...(result.sandboxBlocked ? { blocked: result.sandboxBlocked } : {}), end: async () => undefined };
    },
  };
}
