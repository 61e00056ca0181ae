// The sandboxes Deepdesk made, listed and ended (SPEC §18: `deepdesk sandboxes ls | stop ID |
// rm ID`, and the window's list): the records here joined with what each provider says now.
// Ending one brings back what it changed first, so removing a sandbox loses nothing that the
// layer check lets through.

import os from 'node:os';
import type Database from 'better-sqlite3';
import { resolvePolicy } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { SANDBOX_PROVIDER_NAMES, SandboxProviderError, type SandboxInfo, type SandboxProvider, type SandboxProviderName } from '../../core/sandbox-providers/provider';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import { ThreadStore } from '../threads/thread-store';
import { bringBack } from './bring-back';
import { SandboxStore, type SandboxRecord } from './sandbox-store';

export interface SandboxListing {
  provider: SandboxProviderName;
  id: string;
  /** The provider's state now (`running`, `stopped`, …), or the last one known when it could not be asked. */
  state: string;
  createdAt?: string;
  lastUsedAt?: string;
  /** The worktree folder that runs in it (absent: not made from this data folder). */
  folder?: string;
  worktree?: string;
  threads: string[];
}

export interface SandboxAdminOptions {
  db: Database.Database;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  savedKeys: () => Promise<Record<string, string | undefined>>;
  /** Providers to use instead of the registry's (tests). */
  providers?: Partial<Record<SandboxProviderName, SandboxProvider>>;
}

async function providerFor(name: SandboxProviderName, options: SandboxAdminOptions): Promise<SandboxProvider> {
  return options.providers?.[name] ?? openSandboxProvider(name, { env: options.env, saved: await options.savedKeys() });
}

/** Every sandbox Deepdesk made (records) and every one a provider with credentials lists as Deepdesk's; `problems` says which providers could not be asked. */
export async function listSandboxes(options: SandboxAdminOptions, signal?: AbortSignal): Promise<{ sandboxes: SandboxListing[]; problems: string[] }> {
  const store = new SandboxStore(options.db);
  const threads = new ThreadStore(options.db);
  const records = store.list().filter((r) => r.sandboxId !== null);
  const byId = new Map(records.map((r) => [`${r.provider}:${r.sandboxId}`, r]));
  const listing: SandboxListing[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of SANDBOX_PROVIDER_NAMES) {
    const ours = records.filter((r) => r.provider === name);
    let live: SandboxInfo[] | undefined;
    try {
      live = await (await providerFor(name, options)).list(signal);
    } catch (err) {
      // No key for a provider Deepdesk never used: nothing to say.
      if (!(err instanceof SandboxProviderError && err.reason === 'credentials' && ours.length === 0)) problems.push(err instanceof Error ? err.message : String(err));
    }
    for (const info of live ?? []) {
      const key = `${name}:${info.id}`;
      seen.add(key);
      const record = byId.get(key);
      listing.push(entry(name, info.id, info.state, record, threads, info.createdAt));
    }
    for (const record of ours) {
      const key = `${name}:${record.sandboxId}`;
      if (seen.has(key)) continue;
      // Asked and not listed: gone. Not asked: as last known.
      listing.push(entry(name, record.sandboxId!, live !== undefined ? 'gone' : record.state, record, threads));
    }
  }
  return { sandboxes: listing, problems };
}

function entry(provider: SandboxProviderName, id: string, state: string, record: SandboxRecord | undefined, threads: ThreadStore, createdAt?: string): SandboxListing {
  return {
    provider,
    id,
    state,
    ...(createdAt ?? record?.createdAt ? { createdAt: (createdAt ?? record?.createdAt)! } : {}),
    ...(record ? { lastUsedAt: record.lastUsedAt, folder: record.folder, worktree: record.worktree } : {}),
    threads: record ? threads.threadsIn(record.folder).filter((t) => t.folder === record.folder).map((t) => t.id) : [],
  };
}

/** The sandbox by its id: Deepdesk's record of it, and its provider. */
function find(options: SandboxAdminOptions, id: string, provider?: SandboxProviderName): { record?: SandboxRecord; provider: SandboxProviderName } {
  const record = new SandboxStore(options.db).byId(id);
  const name = record?.provider ?? provider;
  if (name === undefined) throw new SandboxAdminError(`Deepdesk did not make a sandbox ${id} (deepdesk sandboxes ls lists them)`);
  return { ...(record ? { record } : {}), provider: name };
}

export class SandboxAdminError extends Error {}

/** Brings back what the sandbox changed, then stops it (its files are kept where the provider keeps them). */
export async function stopSandbox(options: SandboxAdminOptions, id: string, provider?: SandboxProviderName): Promise<{ provider: SandboxProviderName; broughtBack: number }> {
  const found = find(options, id, provider);
  const p = await providerFor(found.provider, options);
  const broughtBack = found.record ? await bringBackAll(p, found.record, options) : 0;
  await p.stop(id);
  if (found.record) new SandboxStore(options.db).setState(found.record.folder, 'stopped');
  return { provider: found.provider, broughtBack };
}

/**
 * Brings back what the sandbox changed, then deletes it. Its worktree and threads stay (they
 * carry on on this computer); a sandbox already gone is only forgotten.
 */
export async function removeSandbox(options: SandboxAdminOptions, id: string, provider?: SandboxProviderName): Promise<{ provider: SandboxProviderName; broughtBack: number; wasGone: boolean }> {
  const found = find(options, id, provider);
  const p = await providerFor(found.provider, options);
  let broughtBack = 0;
  let wasGone = false;
  try {
    if (found.record) broughtBack = await bringBackAll(p, found.record, options);
    await p.remove(id);
  } catch (err) {
    if (!(err instanceof SandboxProviderError && err.reason === 'gone')) throw err;
    wasGone = true;
  }
  if (found.record) new SandboxStore(options.db).delete(found.record.folder);
  return { provider: found.provider, broughtBack, wasGone };
}

async function bringBackAll(provider: SandboxProvider, record: SandboxRecord, options: SandboxAdminOptions): Promise<number> {
  if (record.manifest === null) return 0;
  const sandbox = await provider.attach(record.sandboxId!);
  try {
    const home = os.homedir();
    const policy = resolvePolicy(folderSandboxPolicy({ projectDir: record.folder, dataDir: options.dataDir }), { homes: [home] });
    const back = await bringBack({ sandbox, folder: record.folder, manifest: record.manifest, home, protectedPaths: policy.protectedPaths });
    new SandboxStore(options.db).setManifest(record.folder, back.manifest);
    return back.applied.length;
  } finally {
    await sandbox.close().catch(() => undefined);
  }
}
