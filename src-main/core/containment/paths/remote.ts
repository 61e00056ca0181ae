// The remote sandboxed command: `execute` on a folder over ssh (RemoteShellBackend in the
// remote's bubblewrap, as openFolderBackend assembles it), against the test sshd on this
// machine. The sshd is given the person's home (SetEnv HOME), so the remote account's home
// is the suite's, secrets and all; the person works there over ssh.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RemoteShellBackend } from '../../backends/remote/remote-shell';
import { createRemoteSandbox } from '../../backends/remote/remote-sandbox';
import { SshConnection } from '../../backends/remote/ssh-connection';
import { parseSshTarget } from '../../backends/remote/ssh-target';
import { startTestSshd, TEST_SSH_HOST, type TestSshd } from '../../backends/remote/testing/sshd';
import { gitCases } from '../git-cases';
import { sshPerson } from '../person';
import type { ExecutionPath, Scene } from '../types';
import { deferredPerson, withReady } from './deferred-person';

export function remoteSandboxedCommand(): ExecutionPath {
  const person = deferredPerson();
  let sshd: TestSshd | undefined;
  const folders = new WeakMap<Scene, { shell: RemoteShellBackend; close(): Promise<void> }>();
  return {
    name: 'remote sandboxed command (ssh to 127.0.0.1)',
    notApplicable: {
      application: 'a remote folder has no write layer: a remote command’s writes land on the remote as it makes them, there is no application to interrupt',
      'trusted-script': 'a command runs no configuration entry (hooks and servers of a remote folder run locally)',
      worktree: 'worktrees are local only (SPEC §16: made by the local system git in the local data folder); a remote folder has no data folder on the remote to work in',
    },
    // A gap, not by design: the remote's walk (remote-git-surface.ts) lists no notes refs yet.
    notApplicableCases: Object.fromEntries(gitCases.filter((c) => c.name.includes('notes')).map((c) => [c.name, 'a remote folder’s notes refs are not part of its git surface yet; a forged note over lines Deepdesk places on an agent is replaced at its next look'])),
    person,
    async setUp(env) {
      sshd = await startTestSshd({ setEnv: { HOME: env.home } });
      person.set(sshPerson(env, sshd.sshCommand, TEST_SSH_HOST, sshd.dir));
    },
    async tearDown() {
      if (sshd) spawnSync('/bin/sh', ['-c', `${sshd.sshCommand} -o ControlPath=${sshd.dir}/person-%C -O exit ${TEST_SSH_HOST}`], { stdio: 'ignore' });
      await sshd?.dispose();
    },
    async run(scene, script, { timeoutS }) {
      if (!sshd) throw new Error('no sshd');
      // The folder's connection and sandbox, as the app holds them while the folder is open: one per scene.
      let opened = folders.get(scene);
      if (!opened) {
        const connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl(scene.project)), controlDir: join(sshd.dir, 'cm'), sshCommand: sshd.sshCommand });
        const sandbox = await createRemoteSandbox(connection, { projectDir: scene.project, dataDir: '' });
        if (!sandbox) {
          await connection.close();
          throw new Error('the remote has no sandbox: the remote path cannot be tested');
        }
        folders.set(scene, (opened = { shell: new RemoteShellBackend({ connection, sandbox }), close: () => connection.close() }));
      }
      const result = await opened.shell.execute(withReady(script), { timeoutS });
      if (result.sandboxed !== true) throw new Error(`the command did not run sandboxed: ${result.output}`);
      const close = opened.close;
      return { output: result.output, ...(result.sandboxBlocked ? { blocked: result.sandboxBlocked } : {}), end: close };
    },
  };
}
