// `deepdesk acp [options]` (SPEC §14): the agent for an editor (Zed, JetBrains, Neovim,
// Emacs) over the Agent Client Protocol on stdin/stdout. The agent runs in the data folder's
// agent host (SPEC §16; cli/acp-session.ts), so the runs of an editor that goes keep going:
// this command relays its lines (host/host-client/acp-relay.ts). stdout carries protocol
// messages only: everything for the person goes to stderr.

import { resolveDataDir } from '../app/base/data-dir';
import { buildId } from '../app/base/package-version';
import { terminalSafe } from '../core/text/terminal-safe';
import { relayAcp } from '../clients/host-client/acp-relay';
import { projectFolder } from './folder-flag';
import { COMMAND_OPTIONS } from './command-table';
import { badRequestsAsUsage, definedEnv } from './host-connection';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const ACP_OPTIONS = COMMAND_OPTIONS.acp;

export async function acpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, ACP_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`acp takes no arguments (got '${positionals.join(' ')}')`);
  const env = process.env;
  const flags = sessionFlagsOf('acp', values);
  const folder = projectFolder(values.folder, 'acp');
  const dataDir = resolveDataDir(values['data-dir'], env);
  const say = (line: string) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  // A library that logs with console.log would corrupt the protocol stream.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const relayed = relayAcp({
    connect: { dataDir, client: 'acp', version: buildId(), env },
    open: {
      folder,
      folderGiven: values.folder !== undefined,
      ...flags,
      cwd: process.cwd(),
      env: definedEnv(env),
    },
    input: process.stdin,
    write: (text) => void process.stdout.write(text),
    say,
    signal: stop.signal,
  });
  // The host's refusal of the flags is bad usage, as the command's own checks are.
  const code = await badRequestsAsUsage(relayed);
  // Whatever a library left open must not keep an editor waiting for this process to end.
  setTimeout(() => process.exit(), 2_000).unref();
  return code;
}
