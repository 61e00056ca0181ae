// An external agent's process (SPEC §22): its whole tree started through the one supervisor
// (sandbox/supervisor.ts) in §7's sandbox for the thread's place — the folder writable, git's
// files and the protected paths read-only, the person's secrets and Deepdesk's data folder
// hidden, no Deepdesk credential in its environment — with its own login folder as a private
// copy (HOME) and its model reached through the metering proxy's socket, forwarded to a port
// of its own loopback.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type SupervisedProcess } from '../sandbox/supervisor';
import { folderSandboxPolicy } from '../sandbox/protected-entry-files';

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
  /** Extra protected paths of the settings. */
  protectedPaths?: string[];
  /** The folder's allowed domains (its commands' network, through the domain proxy). */
  allowedDomains?: string[];
  /** Its model endpoint: a port of its own loopback forwarded to the metering proxy's socket. */
  forwards?: Array<{ port: number; socket: string }>;
  /** Deepdesk's own environment, scrubbed into the base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
}

/** The login folders of the person's home that an agent reads, by agent: copied once into its private home. */
export const LOGIN_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['.claude', '.claude.json'],
  codex: ['.codex'],
  gemini: ['.gemini'],
  opencode: ['.config/opencode', '.local/share/opencode'],
};

/**
 * Copies the person's login entries into the agent's private home once (what is there is kept:
 * the agent's own later state). The person's saved allow-rules for that agent are left out of
 * the copy: they do not pre-approve what it does under Deepdesk (SPEC §22).
 */
export function preparePrivateHome(privateHome: string, entries: readonly string[], personHome: string = homedir()): void {
  mkdirSync(privateHome, { recursive: true, mode: 0o700 });
  for (const entry of entries) {
    const from = join(personHome, entry);
    const to = join(privateHome, entry);
    if (existsSync(to) || !existsSync(from)) continue;
    cpSync(from, to, { recursive: true, dereference: false, errorOnExist: false, force: false });
  }
  dropAllowRules(join(privateHome, '.claude', 'settings.json'), (json) => {
    const permissions = json.permissions;
    if (typeof permissions === 'object' && permissions !== null) delete (permissions as Record<string, unknown>).allow;
  });
  dropAllowRules(join(privateHome, '.gemini', 'settings.json'), (json) => {
    const tools = json.tools;
    if (typeof tools === 'object' && tools !== null) {
      delete (tools as Record<string, unknown>).allowed;
      delete (tools as Record<string, unknown>).autoAccept;
    }
    delete json.autoAccept;
  });
}

function dropAllowRules(file: string, edit: (json: Record<string, unknown>) => void): void {
  if (!existsSync(file)) return;
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return;
    edit(json as Record<string, unknown>);
    writeFileSync(file, JSON.stringify(json, null, 2));
  } catch {
    // Not JSON: the agent reads it as it is, and its own rules ask in its most-asking mode.
  }
}

/**
 * Variables of Deepdesk's environment an agent is never given: they switch an agent out of its
 * most-asking setting (Claude Code's adapter allows skipping every permission under IS_SANDBOX).
 */
export const AGENT_DROPPED_ENV: readonly string[] = ['IS_SANDBOX'];

/** Starts the agent's process tree contained; rejects where no sandbox is available (it is never started unsandboxed). */
export function startAgentProcess(launch: AgentLaunch): Promise<SupervisedProcess> {
  mkdirSync(launch.privateHome, { recursive: true, mode: 0o700 });
  const policy = folderSandboxPolicy({
    projectDir: launch.folder,
    dataDir: launch.dataDir,
    writablePaths: [launch.privateHome],
    ...(launch.readable?.length ? { readablePaths: launch.readable } : {}),
    ...(launch.protectedPaths?.length ? { protectedPaths: launch.protectedPaths } : {}),
    ...(launch.allowedDomains?.length ? { allowedDomains: launch.allowedDomains } : {}),
    ...(launch.forwards?.length ? { forwards: launch.forwards } : {}),
  });
  const baseEnv = { ...(launch.baseEnv ?? process.env) };
  for (const name of AGENT_DROPPED_ENV) delete baseEnv[name];
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
