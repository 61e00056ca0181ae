// `deepdesk host` (SPEC §16): the agent host of a data folder. Clients start it on demand
// (host/host-client/launch.ts); it stops on its own once idle with no client attached.
// With --listen (or Settings › Agent Protocol) it also serves the Agent Protocol (SPEC §19);
// when a host already runs, --listen asks that one to listen while this command runs.

import { runAgentHost, type AgentHostProtocol } from '../app/host/agent-host';
import { checkListenRequest, type ProtocolListenRequest } from '../app/contract/protocol-listen';
import { protocolKey, rotateProtocolKey } from '../app/adapters/agent-protocol/protocol-key';
import { resolveDataDir } from '../app/base/data-dir';
import { buildId, packageVersion } from '../app/base/package-version';
import { readSavedSettings } from '../app/settings/settings-service';
import { HostClient } from '../clients/host-client/client';
import { COMMAND_OPTIONS } from './command-table';
import { projectFolder } from './folder-flag';
import { hostRequest } from './host-connection';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const DEFAULT_IDLE_SECONDS = 30;

export async function hostCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.host);
  if (positionals.length > 0) throw new UsageError(`host takes no arguments (got '${positionals[0]}')`);
  const idleSeconds = idleSecondsOf(values['idle-seconds'], process.env.DEEPDESK_HOST_IDLE_SECONDS);
  const { reviewerChoice: reviewer } = sessionFlagsOf('host', values);
  const dataDir = resolveDataDir(values['data-dir']);
  if (values['print-key'] === true && values['rotate-key'] === true) throw new UsageError('--print-key and --rotate-key go alone: --rotate-key prints the new key');
  if (values['print-key'] === true) {
    process.stdout.write(`${protocolKey(dataDir)}\n`);
    return 0;
  }
  if (values['rotate-key'] === true) {
    process.stdout.write(`${rotateProtocolKey(dataDir)}\n`);
    return 0;
  }
  const asked = listenFlags(values, readSavedSettings(dataDir).agentProtocol?.folder);
  const version = packageVersion();
  const announce = (url: string): void => void process.stdout.write(`Agent Protocol: ${url}\n`);
  const protocol: AgentHostProtocol | undefined =
    asked !== undefined ? { request: asked, required: true, announce } : settingsRequest(dataDir, values.folder !== undefined ? projectFolder(values.folder, 'host') : undefined, announce);
  const outcome = await runAgentHost({
    dataDir,
    idleMs: idleSeconds * 1000,
    // Clients of another build replace this host once it is idle (package-version.ts).
    version: buildId(),
    env: process.env,
    // The host's composition: its own service, with the protocols it serves beside its socket's methods.
    createService: async () => {
      const [{ createHostService }, { editorsAdapter }, { protocolAdapter }] = await Promise.all([
        import('../app/host/service'),
        import('../app/adapters/acp/editors-adapter'),
        import('../app/adapters/agent-protocol/listen'),
      ]);
      return createHostService({ dataDir, env: process.env, version, ...(reviewer !== undefined ? { reviewer } : {}) }, { editors: editorsAdapter, protocol: protocolAdapter });
    },
    ...(protocol !== undefined ? { protocol } : {}),
  });
  if (outcome === 'already-running' && asked !== undefined) return listenThroughRunningHost(dataDir, asked, announce);
  if (outcome === 'already-running') process.stderr.write(`deepdesk host: an agent host is already running for ${dataDir}\n`);
  return 0;
}

type HostValues = ReturnType<typeof parseCommand<typeof COMMAND_OPTIONS.host>>['values'];

/**
 * What --listen and its companions ask for (checked: a refusal is bad usage), or undefined
 * without --listen. The runs' default folder is --folder's, else Settings' Default folder.
 */
function listenFlags(values: HostValues, settingsFolder: string | undefined): ProtocolListenRequest | undefined {
  if (values.listen === undefined) {
    const stray = values['allow-remote'] === true ? '--allow-remote' : values['cors-origin'] !== undefined ? '--cors-origin' : undefined;
    if (stray !== undefined) throw new UsageError(`${stray} goes with --listen [HOST:]PORT`);
    return undefined;
  }
  const request: ProtocolListenRequest = {
    listen: values.listen,
    allowRemote: values['allow-remote'] === true,
    corsOrigins: values['cors-origin'] ?? [],
    ...(values.folder !== undefined ? { folder: projectFolder(values.folder, 'host') } : settingsFolder !== undefined && settingsFolder.trim() !== '' ? { folder: settingsFolder } : {}),
  };
  const checked = checkListenRequest(request);
  if ('error' in checked) throw new UsageError(`--listen ${values.listen}: ${checked.error}`);
  return request;
}

/**
 * Settings › Agent Protocol when it is on: what a host listens on without --listen (the window's
 * host too); the runs' default folder is --folder's, else Settings' Folder.
 */
function settingsRequest(dataDir: string, folder: string | undefined, announce: (url: string) => void): AgentHostProtocol | undefined {
  const saved = readSavedSettings(dataDir).agentProtocol;
  if (saved === undefined || saved.listen.trim() === '') return undefined;
  const runsFolder = folder ?? saved.folder;
  return { request: { listen: saved.listen.trim(), allowRemote: saved.allowRemote, corsOrigins: saved.corsOrigins, ...(runsFolder !== undefined ? { folder: runsFolder } : {}) }, required: false, announce };
}

/**
 * A host already runs for the data folder: it listens for as long as this command's
 * connection stays (Ctrl-C, or the command's end, stops it listening).
 */
async function listenThroughRunningHost(dataDir: string, request: ProtocolListenRequest, announce: (url: string) => void): Promise<number> {
  // Any build's host will do: it is the one running.
  const host = await HostClient.connect({ dataDir, client: 'host --listen', version: '', start: false });
  const gone = new Promise<string>((resolve) => host.onClose(resolve));
  // The running host's lines about this listener (a refused browser origin…), as a host of its own would print them.
  host.onEvent((event, payload) => {
    const line = (payload as { line?: unknown } | null)?.line;
    if (event === 'protocol.log' && typeof line === 'string') process.stderr.write(`${line}\n`);
  });
  const stop = new Promise<void>((resolve) => {
    const signalled = (): void => resolve();
    process.once('SIGINT', signalled);
    process.once('SIGTERM', signalled);
  });
  try {
    const { url, already } = await hostRequest<{ url: string; already?: boolean }>(host, 'protocol.listen', request);
    if (already === true) {
      // Asked twice: the running host serves it already, and goes on serving it whatever this command does.
      process.stdout.write(`Agent Protocol: ${url} (already listening on ${new URL(url).host}: the agent host of ${dataDir} serves it; nothing to start)\n`);
      return 0;
    }
    announce(url);
    const ended = await Promise.race([gone, stop.then(() => undefined)]);
    if (ended !== undefined) {
      process.stderr.write(`deepdesk host: the agent host went away (${ended}): the Agent Protocol stopped with it\n`);
      return 1;
    }
    return 0;
  } finally {
    await host.close();
  }
}

/** `--idle-seconds`, else DEEPDESK_HOST_IDLE_SECONDS, else 30: a positive number of seconds. */
function idleSecondsOf(flag: string | undefined, env: string | undefined): number {
  const [name, raw] = flag !== undefined ? ['--idle-seconds', flag] : env !== undefined && env !== '' ? ['DEEPDESK_HOST_IDLE_SECONDS', env] : [undefined, undefined];
  if (name === undefined || raw === undefined) return DEFAULT_IDLE_SECONDS;
  const seconds = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} must be a positive number of seconds (got '${raw}')`);
  return seconds;
}
