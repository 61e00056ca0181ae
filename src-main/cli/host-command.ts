// `deepdesk host` (SPEC §16): the agent host of a data folder. Clients start it on demand
// (host/host-client/launch.ts); it stops on its own once idle with no client attached.

import { runAgentHost } from '../app/host/agent-host';
import { resolveDataDir } from '../app/data-dir';
import { buildId, packageVersion } from '../app/package-version';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, UsageError } from './usage';

const DEFAULT_IDLE_SECONDS = 30;

export async function hostCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.host);
  if (positionals.length > 0) throw new UsageError(`host takes no arguments (got '${positionals[0]}')`);
  const idleSeconds = idleSecondsOf(values['idle-seconds'], process.env.DEEPDESK_HOST_IDLE_SECONDS);
  const dataDir = resolveDataDir(values['data-dir']);
  const version = packageVersion();
  const outcome = await runAgentHost({
    dataDir,
    idleMs: idleSeconds * 1000,
    // Clients of another build replace this host once it is idle (package-version.ts).
    version: buildId(),
    env: process.env,
    createService: async () => (await import('../app/host/service')).createHostService({ dataDir, env: process.env, version }),
  });
  if (outcome === 'already-running') process.stderr.write(`deepdesk host: an agent host is already running for ${dataDir}\n`);
  return 0;
}

/** `--idle-seconds`, else DEEPDESK_HOST_IDLE_SECONDS, else 30: a positive number of seconds. */
function idleSecondsOf(flag: string | undefined, env: string | undefined): number {
  const [name, raw] = flag !== undefined ? ['--idle-seconds', flag] : env !== undefined && env !== '' ? ['DEEPDESK_HOST_IDLE_SECONDS', env] : [undefined, undefined];
  if (name === undefined || raw === undefined) return DEFAULT_IDLE_SECONDS;
  const seconds = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} must be a positive number of seconds (got '${raw}')`);
  return seconds;
}
