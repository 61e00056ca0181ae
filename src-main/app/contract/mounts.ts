// The contract's shapes for mounts and the memories store (SPEC §13). Renderer-safe: zod and
// the pure spec parsers only (the window checks what is typed with the same messages).

import { z } from 'zod';
import { memoriesStoreTextError } from '../../core/backends/store/memories-store-text';
import { MountSpecError, parseMountSpec } from '../../core/backends/mounts/mount-spec';

/** Why `{prefix, spec}` is no mount the person can save, or null. Saved folders are absolute or ~/…. */
export function savedMountError(prefix: string, spec: string): string | null {
  try {
    parseMountSpec(`${prefix}=${spec}`);
    return null;
  } catch (err) {
    if (err instanceof MountSpecError) return err.message;
    throw err;
  }
}

/** A mount in settings.json: the prefix and the source as the person wrote it. */
export const savedMountSchema = z
  .object({ prefix: z.string().max(500), spec: z.string().max(2000) })
  .strict()
  .superRefine((mount, ctx) => {
    const why = savedMountError(mount.prefix, mount.spec);
    if (why !== null) ctx.addIssue({ code: 'custom', message: why });
  });

export const memoriesStoreSchema = z
  .string()
  .max(2000)
  .superRefine((text, ctx) => {
    const why = memoriesStoreTextError(text);
    if (why !== null) ctx.addIssue({ code: 'custom', message: why });
  });

export const mountInfoSchema = z.object({
  prefix: z.string(),
  /** The folder (with ro:) or git+URL#BRANCH, without a password. */
  source: z.string(),
  kind: z.enum(['local', 'git']),
  readOnly: z.boolean(),
  /** `flag`: set by --mount for this session (not editable here); `settings`: saved. */
  from: z.enum(['flag', 'settings']),
  /** Why it is not mounted now (e.g. its folder is not there). */
  problem: z.string().optional(),
});
export type MountInfoDto = z.infer<typeof mountInfoSchema>;

export const mountsListSchema = z.object({
  mounts: z.array(mountInfoSchema),
  /** Where /memories/ lives in this session, without a password (e.g. `sqlite (local)`). */
  memoriesStore: z.string(),
});
export type MountsListDto = z.infer<typeof mountsListSchema>;

export const mountCommitSchema = z.object({ commit: z.string(), author: z.string(), date: z.string(), subject: z.string() });
export type MountCommitDto = z.infer<typeof mountCommitSchema>;

export const mountMethods = {
  /** The mounts in force: --mount flags, then Settings' (a flag wins for its prefix). */
  'mounts.list': { params: z.object({}).strict(), result: mountsListSchema },
  /** Saves a mount in Settings (applies to the next tool call of every thread). */
  'mounts.add': { params: z.object({ prefix: z.string().max(500), spec: z.string().max(2000) }), result: mountsListSchema },
  /** Removes a saved mount (a flag's cannot be removed here). */
  'mounts.remove': { params: z.object({ prefix: z.string().max(500) }), result: mountsListSchema },
  /** A git mount's commits, newest first. */
  'mounts.history': {
    params: z.object({ prefix: z.string().max(500), limit: z.number().int().positive().max(500).optional() }),
    result: z.object({
      commits: z.array(mountCommitSchema),
      /** The remote is still being cloned (the answer does not wait for it): no commits yet; `mounts.changed` tells when it is done. */
      cloning: z.boolean().optional(),
    }),
  },
} as const;

export const mountEvents = {
  'mounts.changed': z.object({}),
} as const;
