// The agent host in the desktop app's own binary (SPEC §16). The installed app has Electron's
// runAsNode fuse off, so it cannot run the CLI as plain Node: the desktop app starts itself
// with AGENT_HOST_SWITCH instead, and main.ts runs the host (no window, no single-instance
// lock, no dock icon). Unpackaged (`npm start`, tests), the CLI's `deepdesk host` is started
// as everywhere else (host-client/launch.ts).

import { defaultHostLaunch, type HostLaunch } from '../host-client/launch';

export const AGENT_HOST_SWITCH = '--deepdesk-agent-host';

/** Whether this process was started to be the agent host (the switch, then the host's own arguments). */
export function agentHostArgs(argv: readonly string[]): string[] | undefined {
  const at = argv.indexOf(AGENT_HOST_SWITCH);
  return at < 0 ? undefined : argv.slice(at + 1);
}

/**
 * How the desktop app starts the host of `dataDir`: the installed app's own binary with the
 * switch; unpackaged (or not under Electron at all: tests), the CLI's `deepdesk host`.
 */
export function desktopHostLaunch(options: { packaged: boolean; electron: boolean; execPath: string; dataDir: string; env: NodeJS.ProcessEnv }): HostLaunch {
  if (!options.packaged || !options.electron) return defaultHostLaunch(options.dataDir, options.env);
  return { file: options.execPath, args: [AGENT_HOST_SWITCH, '--data-dir', options.dataDir], env: { ...options.env } };
}
