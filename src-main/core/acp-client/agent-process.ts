// An external agent's process (SPEC §22): its whole tree started through the one supervisor
// (sandbox/supervisor.ts) in §7's sandbox for the thread's place — the folder writable, git's
// files and the protected paths read-only, the person's secrets and Deepdesk's data folder
// hidden, no Deepdesk credential in its environment — with its own login folder as a private
// copy (HOME) and its model reached through the metering proxy's socket, forwarded to a port
// of its own loopback.
import { cpSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { startProcess, type SupervisedProcess } from '../sandbox/supervisor';
import { folderSandboxPolicy } from '../sandbox/protected-entry-files';
import { linkedParent } from '../fs/no-follow';

export interface AgentLaunch {
  command: string;
  args: string[];
  /** The agent's own variables (its model's base URL, a placeholder key, quiet switches); they win over the scrubbed base. */
  env: Record<string, string>;
  /** The thread's place: the folder or its worktree (real path). */
  folder: string;
  dataDir: string;
  /** The agent's private folder (in the data folder): its HOME, writable to it alone. */
  privateHome: string;
  /** Read-only folders it runs from (its installation in the data folder). */
  readable?: string[];
  /** Its model endpoint: a port of its own loopback forwarded to the metering proxy's socket. */
  forwards?: Array<{ port: number; socket: string }>;
  /** Its vendor's login entries of the person's home (default the home) and what makes its private home ready before each start. */
  home?: { loginEntries: readonly string[]; personHome?: string; prepare?(privateHome: string): void };
  /** Variables of Deepdesk's environment its vendor is never given (they switch it out of its most-asking setting): said by every caller. */
  droppedEnv: readonly string[];
}

/**
 * Copies the person's login entries into the agent's private home once (what is there is kept:
 * the agent's own later state), then lets its vendor make the home ready (SPEC §22: the person's
 * saved allow-rules of that agent left out of the copy).
 */
function preparePrivateHome(privateHome: string, home: NonNullable<AgentLaunch['home']>): void {
  for (const entry of home.loginEntries) {
    const from = join(home.personHome ?? homedir(), entry);
    const to = join(privateHome, entry);
    // What the agent left there is kept, a link too (or one on the way to it): never copied through.
    if (linkedParent(privateHome, entry) !== null || lstatSync(to, { throwIfNoEntry: false }) !== undefined || !existsSync(from)) continue;
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    cpSync(from, to, { recursive: true, dereference: false, errorOnExist: false, force: false });
  }
  home.prepare?.(privateHome);
}

/** Starts the agent's process tree contained; rejects where no sandbox is available (it is never started unsandboxed). */
export function startAgentProcess(launch: AgentLaunch): Promise<SupervisedProcess> {
  mkdirSync(launch.privateHome, { recursive: true, mode: 0o700 });
  if (launch.home) preparePrivateHome(launch.privateHome, launch.home);
  const policy = folderSandboxPolicy({
    projectDir: launch.folder,
    dataDir: launch.dataDir,
    writablePaths: [launch.privateHome],
    privateTmp: true,
    ...(launch.readable?.length ? { readablePaths: launch.readable } : {}),
    ...(launch.forwards?.length ? { forwards: launch.forwards } : {}),
  });
  // Deepdesk's own environment, scrubbed into the base.
  const baseEnv = { ...process.env };
  for (const name of launch.droppedEnv) delete baseEnv[name];
  return startProcess({
    role: 'agent',
    command: launch.command,
    args: launch.args,
    cwd: launch.folder,
    env: { ...launch.env, HOME: launch.privateHome, USERPROFILE: launch.privateHome },
    baseEnv,
    sandbox: policy,
    logLines: 400,
  });
}
