// Contract shapes for queued messages and for settings that a command-line flag overrides.
// Free of Node and Electron imports: the renderer bundles it.

import { z } from 'zod';
import { SESSION_FLAGS, type SessionFlagRowOf } from './session-flag-table';

/** A message the person sent while a run was going; delivered when the current step ends. */
export const queuedMessageSchema = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });
export type QueuedMessageDto = z.infer<typeof queuedMessageSchema>;

/** A row of THE table that the window's session takes over Settings: a flag of `deepdesk serve` that wins over Settings. */
type OverrideRowOf<R> = R extends { overSettings: true; commands: readonly (infer C)[] } ? ('serve' extends C ? R : never) : never;
type WindowOverrideRow = OverrideRowOf<SessionFlagRowOf>;
export const WINDOW_OVERRIDE_ROWS = SESSION_FLAGS.filter((row): row is WindowOverrideRow => 'overSettings' in row && (row.commands as readonly string[]).includes('serve'));

/**
 * Settings fields that a flag of `deepdesk serve` (or the desktop app's command line)
 * overrides for this session only: the value shown is the flag's, and saving never
 * writes it to settings.json.
 */
export type OverriddenFields = { [R in WindowOverrideRow as R['key']]?: boolean };
export const overriddenSchema = z.object(Object.fromEntries(WINDOW_OVERRIDE_ROWS.map((row) => [row.key, z.boolean().optional()]))) as unknown as z.ZodType<OverriddenFields>;

/** The flag behind each overridable field, as the person typed it. */
export const OVERRIDE_FLAGS = Object.fromEntries(WINDOW_OVERRIDE_ROWS.map((row) => [row.key, `--${row.flag}`])) as Record<keyof OverriddenFields, string>;
