// The CLI's connection to the data folder's agent host: started on demand, its refusals of a
// bad request told as bad usage (exit 2), as the command itself would have.

import { HostRequestError } from '../app/base/host-service';
import { buildId } from '../app/base/package-version';
import { HostClient } from '../clients/host-client/client';
import { UsageError } from './usage';

export async function connectToHost(dataDir: string, client: string, env: NodeJS.ProcessEnv, start = true): Promise<HostClient> {
  return HostClient.connect({
    dataDir,
    client,
    version: buildId(),
    env,
    start,
    // Not replaced under what it serves: said, not silent.
    onKeptOtherBuild: (why) => void process.stderr.write(`deepdesk: the agent host runs another build of Deepdesk and is kept (${why}); it is replaced once it is idle\n`),
  });
}

/** A host request whose `bad_request` answer is a UsageError. */
export function hostRequest<T>(host: HostClient, method: string, params?: unknown): Promise<T> {
  return badRequestsAsUsage(host.request<T>(method, params));
}

/** What the host answered `bad_request` to, as a UsageError (exit 2). */
export async function badRequestsAsUsage<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof HostRequestError && err.code === 'bad_request') throw new UsageError(err.message);
    throw err;
  }
}

/** The environment as the host's schemas take it (no unset values). */
export function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
