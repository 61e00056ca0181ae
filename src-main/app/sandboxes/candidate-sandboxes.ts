// The sandboxes of a set of candidates (SPEC §21) whose provider can fork (§18): ONE sandbox set
// up as any sandbox thread's is — its worktree and record made by sandboxFolderFor, the sandbox
// made and the folder uploaded by openSandboxPlace — then forked N−1 times before anything runs.
// The set-up sandbox is candidate 1's (one sandbox fewer to pay for and delete, and its files
// are the forks' until a run starts); each fork is recorded for its own candidate's worktree with
// the set-up's manifest (the same files), so each candidate's run reattaches its own sandbox as
// `--sandbox-id` does (the label check included) and what it changes comes back to its own
// worktree. Where the provider cannot fork, nothing is done here: each candidate's run makes
// its sandbox from the same folder, one upload each (and so for candidates 2…N where the
// provider forks but not this sandbox: Daytona's container-class sandboxes).

import { PROVIDER_LABELS, providerText, SandboxProviderError, type ProviderSandbox, type SandboxProvider } from '../../core/sandbox-providers/provider';
import { SANDBOX_PROVIDER_TABLE } from '../../core/process/sandbox-provider-table';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import type { UsageLedger } from '../../core/telemetry/usage-ledger';
import { ContractError } from '../contract';
import { parseFolderLocation } from '../places/folder-location';
import type { SettingsService } from '../settings/settings-service';
import { abandonSandboxFolder, sandboxFolderFor, type SandboxFolder } from './sandbox-folder';
import { openSandboxPlace, sandboxSpec } from './sandbox-place';
import { requestedProvider, type SandboxRequest, type SandboxRequestContext } from './sandbox-request';
import { SandboxStore } from './sandbox-store';

export interface CandidateSandboxesRequest {
  /** The person's folder (local). */
  folder: string;
  cwd: string;
  sandbox: SandboxRequest;
  env: NodeJS.ProcessEnv;
  /** The candidates' threads, in order: each sandbox's time is its thread's. */
  threadIds: readonly string[];
  /** Words for candidate `i`'s worktree name. */
  nameHint: (i: number) => string;
  signal?: AbortSignal;
}

/**
 * Each candidate's `--sandbox` request (`{provider, id}` of its own sandbox, in order), all made
 * before this returns; undefined when the provider does not fork (or for one candidate), and
 * each candidate's run makes its own. Made in part, it is all undone (the sandboxes
 * deleted, the worktrees, branches and records removed) and a ContractError says why. The set's
 * composition (app/session/folder-session.ts) lends its Settings and its ledger (each sandbox's time).
 */
export async function forkedCandidateSandboxes(
  request: CandidateSandboxesRequest,
  context: Omit<SandboxRequestContext, 'secrets'> & { settings: Pick<SettingsService, 'raw' | 'sandboxKeys'>; ledger: Pick<UsageLedger, 'recordSandboxTime'> },
  say: (line: string) => void,
): Promise<SandboxRequest[] | undefined> {
  const count = request.threadIds.length;
  // One sandbox named to reattach cannot be each of several candidates' own.
  if (request.sandbox.id !== undefined && count > 1) throw new ContractError(`--sandbox-id names one sandbox; each of ${count} candidates needs its own (leave out --sandbox-id)`, 'bad_request');
  if (count < 2) return undefined;
  const name = requestedProvider(context.db, request.sandbox);
  if (!SANDBOX_PROVIDER_TABLE[name].capabilities.fork) return undefined;
  const location = parseFolderLocation(request.folder, request.cwd);
  if (location.kind !== 'local') throw new ContractError(`--sandbox: a sandbox thread starts from a local folder, not ${request.folder}`, 'bad_request');
  const label = PROVIDER_LABELS[name];
  const { settings, ledger } = context;
  const store = new SandboxStore(context.db);
  const folders: SandboxFolder[] = [];
  /** The sandboxes made (set-up first), to delete if the set is not made whole. */
  const made: string[] = [];
  let provider: SandboxProvider | undefined;
  try {
    const savedKeys = () => settings.sandboxKeys();
    provider = await openSandboxProvider(name, { env: request.env, saved: await savedKeys() });
    if (provider.fork === undefined) return undefined;
    // The worktrees first, one after another (git locks its admin files), each marked for the provider.
    for (let i = 0; i < count; i++) {
      folders.push(await sandboxFolderFor({ dataDir: context.dataDir, db: context.db, folder: location.path, provider: name, env: request.env, savedKeys, nameHint: request.nameHint(i), ...(request.signal ? { signal: request.signal } : {}) }));
    }
    const place = () => settings.raw().sandboxes ?? {};
    const recordTime = (threadId: string, folder: string) => (slice: { at: string; provider: string; sandboxId: string; seconds: number; costUsd: number | null }) =>
      ledger.recordSandboxTime({ ...slice, threadId, folder });
    // The set-up: candidate 1's sandbox, made and sent the folder as any sandbox thread's.
    const first = folders[0]!;
    const setUp = await openSandboxPlace({
      record: store.get(first.threadFolder)!,
      store,
      dataDir: context.dataDir,
      env: request.env,
      settings: place,
      savedKeys,
      say: (line) => say(line),
      recordTime: recordTime(request.threadIds[0]!, first.threadFolder),
      provider,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const setUpId = setUp.sandbox.id;
    made.push(setUpId);
    await setUp.close();
    const record = store.get(first.threadFolder)!;
    const forkedAt = Date.now();
    let forks: ProviderSandbox[];
    try {
      forks = await provider.fork(setUpId, count - 1, sandboxSpec(place(), first.worktree), request.signal);
    } catch (err) {
      if (!(err instanceof SandboxProviderError && err.reason === 'unsupported')) throw err;
      // The provider forks, but not this sandbox (its class): candidate 1 keeps the set-up
      // sandbox, and each other candidate's run makes its own from the folder, as where none forks.
      for (const folder of folders.splice(1)) await abandonSandboxFolder({ dataDir: context.dataDir, db: context.db, env: request.env }, folder);
      say(`${err.message} The other candidates' sandboxes are made from the same folder, one upload each.`);
      return [{ provider: name, id: setUpId }, ...request.threadIds.slice(1).map(() => request.sandbox)];
    }
    made.push(...forks.map((f) => f.id));
    const handedAt = Date.now();
    for (const [i, fork] of forks.entries()) {
      const folder = folders[i + 1]!.threadFolder;
      store.made(folder, fork.id);
      store.setManifest(folder, record.manifest);
      if (record.uploadSummary !== null) store.setUploadSummary(folder, record.uploadSummary.replace(setUpId, fork.id));
      await fork.close().catch(() => undefined);
      // Its time from its making until its run holds it (the run's place meters it from then).
      const price = place().pricesPerHourUsd?.[name];
      const seconds = (handedAt - forkedAt) / 1000;
      recordTime(request.threadIds[i + 1]!, folder)({ at: new Date(forkedAt).toISOString(), provider: name, sandboxId: fork.id, seconds, costUsd: price === undefined ? null : (price * seconds) / 3600 });
    }
    say(`The ${count} candidates work in ${label} sandboxes forked from one set up with the folder (${[setUpId, ...forks.map((f) => f.id)].join(', ')}).`);
    return [setUpId, ...forks.map((f) => f.id)].map((id) => ({ provider: name, id }));
  } catch (err) {
    // Nothing starts unless all are made: what was made goes.
    await Promise.all(made.map((id) => provider?.remove(id).catch(() => undefined)));
    for (const folder of folders) await abandonSandboxFolder({ dataDir: context.dataDir, db: context.db, env: request.env }, folder).catch(() => undefined);
    if (err instanceof ContractError) throw err;
    const why = err instanceof SandboxProviderError ? err.message : providerText(err instanceof Error ? err.message : String(err));
    throw new ContractError(`The candidates' ${label} sandboxes could not be made (one set up with the folder, forked for each candidate): ${why} Nothing was started, and what was made for them is removed.`, 'failed');
  }
}
