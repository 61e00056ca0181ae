// STUB for the terminal/modes branch: the real sandbox module replaces this file at merge.
// Only the agreed signatures; no sandbox is ever created here.
import type { Sandbox, SandboxAvailability, SandboxPolicy } from './types';

export type { CommandSpec, PreparedCommand, Sandbox, SandboxAvailability, SandboxKind, SandboxPolicy } from './types';

export async function detectSandbox(): Promise<SandboxAvailability> {
  return { available: false, reason: 'sandbox not built yet' };
}

export async function createSandbox(_policy: SandboxPolicy): Promise<Sandbox | undefined> {
  return undefined;
}
