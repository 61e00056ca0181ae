// The desktop app's entry (the Electron main process): the shell, and, started with
// AGENT_HOST_SWITCH, the same binary as the agent host running the CLI's `deepdesk host`.
// It stands above both, so the shell never imports the command line.

import { startDesktop } from './clients/electron/main';

startDesktop({ runHost: async (args) => (await import('./cli/host-command')).hostCommand(args) });
