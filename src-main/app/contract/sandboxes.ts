// Settings › Sandboxes (SPEC §18): which provider a thread in a sandbox runs in, what its
// sandboxes are made with, and what an hour of a provider's sandbox costs for the usage ledger
// (§17). No built-in prices: a provider's depend on the sandbox's size. Renderer-safe: zod and
// the provider table's data only.

import { z } from 'zod';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE, type SandboxProviderName } from '../../core/process/sandbox-provider-table';

/** The providers of THE table (core/process/sandbox-provider-table.ts), data only: no SDK, no factory. */
export { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE };

export const sandboxProviderSchema = z.enum(SANDBOX_PROVIDER_NAMES);
export type SandboxProvider = SandboxProviderName;

export const sandboxSettingsSchema = z.object({
  provider: sandboxProviderSchema.optional(),
  /** An image (`debian:12`) or the provider's template or snapshot name; absent: the provider's default. */
  image: z.string().max(300).optional(),
  cpu: z.number().positive().max(64).optional(),
  memoryGiB: z.number().positive().max(512).optional(),
  /** Minutes without a command before a sandbox is stopped. */
  idleTimeoutMin: z.number().int().min(1).max(1440).optional(),
  /** The folder's upload is refused past this size. */
  maxUploadMb: z.number().int().min(1).max(10240).optional(),
  /** A file the sandbox changed larger than this does not come back (default 50). */
  maxBringBackFileMb: z.number().int().min(1).max(10240).optional(),
  /** What one step brings back from the sandbox, at most; the largest files stay there first (default 500). */
  maxBringBackStepMb: z.number().int().min(1).max(102400).optional(),
  /** US dollars per hour of a provider's sandbox; absent: its time is counted, its cost is not. */
  pricesPerHourUsd: z.partialRecord(sandboxProviderSchema, z.number().nonnegative()).optional(),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** Where a thread in a provider's sandbox runs (SPEC §18): the header, the Agents view and `execute` approvals say it. */
export const sandboxPlaceSchema = z.object({ provider: sandboxProviderSchema, label: z.string(), sandboxId: z.string() });
export type SandboxPlaceDto = z.infer<typeof sandboxPlaceSchema>;

/** `Runs in Daytona · sandbox ID`: the words every client uses for it. */
export function runsInText(place: Pick<SandboxPlaceDto, 'label' | 'sandboxId'>): string {
  return `Runs in ${place.label} · sandbox ${place.sandboxId}`;
}

/** A sandbox ID as a badge shows it: its first 8 characters and `…` when longer than 12 (a UUID); the whole of it goes in the badge's tooltip. */
export function shortSandboxId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** `Runs in Daytona · sandbox 1a2b3c4d…`: runsInText with the short ID, for the window's badges. */
export function runsInShortText(place: Pick<SandboxPlaceDto, 'label' | 'sandboxId'>): string {
  return `Runs in ${place.label} · sandbox ${shortSandboxId(place.sandboxId)}`;
}

/** Where the open folder's sandbox stands (SPEC §18): gone or removed, the thread's ways forward are a new sandbox or this computer. */
export const sandboxPlaceStatusSchema = z.object({
  state: z.enum(['running', 'stopped', 'gone', 'removed']),
  /** For gone and removed: what happened and the ways forward, in words. */
  message: z.string().optional(),
});
export type SandboxPlaceStatus = z.infer<typeof sandboxPlaceStatusSchema>;

export const sandboxMethods = {
  /**
   * Whether the open folder's thread can run in the provider's sandbox now: a local git
   * repository with a commit (or a worktree thread folder, which continues as it is), and the
   * provider's key in the environment or Settings; `why` is the one line saying what is missing.
   */
  'sandboxes.canRun': {
    params: z.object({ provider: sandboxProviderSchema }).strict(),
    result: z.object({ ok: z.boolean(), why: z.string().optional(), continues: z.boolean() }),
  },
  /**
   * `New thread in a sandbox…` (a worktree of the open folder with its uncommitted changes) or,
   * the open folder being a worktree thread folder, `Continue in a sandbox…` (that folder):
   * marked to run in the provider's sandbox. The window then opens `threadFolder` (anew), whose
   * session makes the sandbox and uploads the folder.
   */
  'sandboxes.runIn': {
    /** `name`: the new worktree's name (made up when absent); not for `Continue in a sandbox…`. */
    params: z.object({ provider: sandboxProviderSchema, name: z.string().min(1).max(63).optional() }).strict(),
    result: z.object({ threadFolder: z.string(), worktree: z.string(), branch: z.string() }),
  },
  /**
   * Settings › Sandboxes › `Test key`: one cheap authenticated call to the provider (listing
   * Deepdesk's sandboxes) with the key in the environment or Settings. `ok` false says why in
   * one line: no key, the key refused, the service unreachable.
   */
  'sandboxes.testKey': {
    params: z.object({ provider: sandboxProviderSchema }).strict(),
    result: z.object({ ok: z.boolean(), message: z.string() }),
  },
  /** Where the open folder's sandbox stands; null when its threads do not run in one. */
  'sandboxes.status': {
    params: z.object({}).strict(),
    result: sandboxPlaceStatusSchema.nullable(),
  },
  /**
   * `Continue on this computer`: what the sandbox changed comes back (when it is still there),
   * it is deleted, and the folder's threads no longer run in it. The window then opens
   * `threadFolder` anew: its threads carry on on this computer, in the worktree.
   */
  'sandboxes.leave': {
    params: z.object({}).strict(),
    result: z.object({ threadFolder: z.string(), broughtBack: z.number().int().nonnegative(), wasGone: z.boolean() }),
  },
} as const;

export const sandboxEvents = {
  /** The open folder's sandbox was started again, stopped, found gone or removed. */
  'sandboxes.changed': sandboxPlaceStatusSchema,
} as const;

