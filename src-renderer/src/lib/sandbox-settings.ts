// Settings › Sandboxes as the dialog edits them (SPEC §18): the fields as typed, and the saved
// settings they make (or what is wrong with them, in one line).

import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE, sandboxSettingsSchema, type SandboxProvider, type SandboxSettings } from '../../../src-main/app/contract';

/** Whether Settings › Sandboxes offers a size for the chosen provider (THE provider table's `offers`); none chosen: every size. */
export function offersSize(provider: SandboxProvider | '', size: 'cpu' | 'memory'): boolean {
  return provider === '' || SANDBOX_PROVIDER_TABLE[provider].offers[size];
}

export interface SandboxesDraft {
  provider: SandboxProvider | '';
  image: string;
  cpu: string;
  memory: string;
  idle: string;
  upload: string;
  /** Bring-back caps (MB): per file, per step. */
  backFile: string;
  backStep: string;
  /** USD per hour, per provider, as typed. */
  prices: Record<SandboxProvider, string>;
}

const text = (n: number | undefined): string => (n === undefined ? '' : String(n));

export function sandboxesDraft(saved: SandboxSettings | undefined): SandboxesDraft {
  const s = saved ?? {};
  return {
    provider: s.provider ?? '',
    image: s.image ?? '',
    cpu: text(s.cpu),
    memory: text(s.memoryGiB),
    idle: text(s.idleTimeoutMin),
    upload: text(s.maxUploadMb),
    backFile: text(s.maxBringBackFileMb),
    backStep: text(s.maxBringBackStepMb),
    prices: Object.fromEntries(SANDBOX_PROVIDER_NAMES.map((p) => [p, text(s.pricesPerHourUsd?.[p])])) as Record<SandboxProvider, string>,
  };
}

/** The settings the draft says, or the first thing wrong with it. */
export function sandboxesFromDraft(draft: SandboxesDraft): { sandboxes: SandboxSettings } | { error: string } {
  const numbers: Array<[keyof SandboxSettings, string, string]> = [
    ['cpu', draft.cpu, 'CPUs'],
    ['memoryGiB', draft.memory, 'Memory (GiB)'],
    ['idleTimeoutMin', draft.idle, 'Idle timeout (minutes)'],
    ['maxUploadMb', draft.upload, 'Upload cap (MB)'],
    ['maxBringBackFileMb', draft.backFile, 'Bring-back cap per file (MB)'],
    ['maxBringBackStepMb', draft.backStep, 'Bring-back cap per step (MB)'],
  ];
  const out: Record<string, unknown> = {};
  if (draft.provider !== '') out.provider = draft.provider;
  if (draft.image.trim() !== '') out.image = draft.image.trim();
  for (const [field, typed, label] of numbers) {
    if (typed.trim() === '' || (field === 'cpu' && !offersSize(draft.provider, 'cpu')) || (field === 'memoryGiB' && !offersSize(draft.provider, 'memory'))) continue;
    const n = Number(typed.trim());
    if (!Number.isFinite(n) || n <= 0) return { error: `Sandboxes › ${label} must be a positive number.` };
    out[field] = n;
  }
  const prices: Record<string, number> = {};
  for (const p of SANDBOX_PROVIDER_NAMES) {
    const typed = draft.prices[p].trim();
    if (typed === '') continue;
    const n = Number(typed);
    if (!Number.isFinite(n) || n < 0) return { error: `Sandboxes › the price per hour must be a number of US dollars.` };
    prices[p] = n;
  }
  if (Object.keys(prices).length > 0) out.pricesPerHourUsd = prices;
  const parsed = sandboxSettingsSchema.safeParse(out);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: `Sandboxes › ${String(issue.path[0] ?? 'settings')}: ${issue.message}.` };
  }
  return { sandboxes: parsed.data };
}

export function sameSandboxesDraft(a: SandboxesDraft, b: SandboxesDraft): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
