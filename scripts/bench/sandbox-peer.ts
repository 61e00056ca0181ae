// The peer a person would pick instead of Deepdesk's sandbox: Claude Code's sandbox runtime
// (@anthropic-ai/sandbox-runtime, a pinned devDependency), used as a library as Claude Code
// uses it: initialized once for the project (its proxies and, on Linux, socat's bridges), then
// each command wrapped (`wrapWithSandbox`: bubblewrap's arguments, the deny scan with ripgrep)
// and run by a shell in the project, its output read. It writes straight to the folder (no
// write layer) and checks nothing after the command. On Linux it needs socat, obtained as the
// test set-up obtains bubblewrap (scripts/test-setup/system-tools.ts), and ripgrep, the one
// @vscode/ripgrep ships.

import { spawn } from 'node:child_process';
import os from 'node:os';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { acquireSocat, realMachine } from '../test-setup/system-tools';
import { errorText } from './measure';

export const PEER = '@anthropic-ai/sandbox-runtime';

export interface Peer {
  /** One command as Claude Code runs one: wrapped, then `sh -c` in the project; rejects on a failure. */
  run(command: string): Promise<string>;
  close(): Promise<void>;
}

/** The peer ready in `folder`, or why it cannot run here (one line). */
export async function startPeer(folder: string): Promise<Peer | { unavailable: string }> {
  if (os.platform() !== 'linux' && os.platform() !== 'darwin') return { unavailable: `${PEER} sandboxes on Linux and macOS only (this is ${os.platform()})` };
  const socat = acquireSocat(realMachine());
  if (socat !== null && !socat.ok) return { unavailable: socat.line };
  const [{ SandboxManager }, { rgPath }] = await Promise.all([import('@anthropic-ai/sandbox-runtime'), import('@vscode/ripgrep')]);
  const config: SandboxRuntimeConfig = {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: ['~/.ssh'], allowWrite: ['.'], denyWrite: ['.env'] },
    ripgrep: { command: rgPath },
    ...(socat !== null ? { socatPath: socat.path } : {}),
  };
  // The runtime takes the project from the working folder, as Claude Code runs in it.
  const inFolder = async <T>(work: () => Promise<T>): Promise<T> => {
    const before = process.cwd();
    process.chdir(folder);
    try {
      return await work();
    } finally {
      process.chdir(before);
    }
  };
  try {
    await inFolder(() => SandboxManager.initialize(config));
  } catch (err) {
    return { unavailable: `${PEER} did not start: ${errorText(err)}` };
  }
  return {
    run: async (command) => {
      const wrapped = await inFolder(() => SandboxManager.wrapWithSandbox(command));
      return new Promise((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', wrapped], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = 0;
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.length));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.once('error', reject);
        child.once('close', (code) => (code === 0 ? resolve(`${out} bytes`) : reject(new Error(`${PEER}: exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}`))));
      });
    },
    close: () => SandboxManager.reset(),
  };
}
