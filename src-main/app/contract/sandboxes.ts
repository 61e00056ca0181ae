// Settings › Sandboxes (SPEC §18): which provider a thread in a sandbox runs in, what its
// sandboxes are made with, and what an hour of a provider's sandbox costs for the usage ledger
// (§17). No built-in prices: a provider's depend on the sandbox's size. Renderer-safe: zod only.

import { z } from 'zod';
import type { SandboxProviderName } from '../../core/sandbox-providers/provider';

export const sandboxProviderSchema = z.enum(['daytona', 'modal', 'e2b', 'deno']);
export type SandboxProvider = z.infer<typeof sandboxProviderSchema>;

// The contract names exactly the providers core has.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameProviders: Same<SandboxProvider, SandboxProviderName> = true;
void sameProviders;

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
  /** US dollars per hour of a provider's sandbox; absent: its time is counted, its cost is not. */
  pricesPerHourUsd: z.partialRecord(sandboxProviderSchema, z.number().nonnegative()).optional(),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
