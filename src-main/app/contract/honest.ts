// Contract shapes for queued messages and for settings that a command-line flag overrides.
// Free of Node and Electron imports: the renderer bundles it.

import { z } from 'zod';

/** A message the person sent while a run was going; delivered when the current step ends. */
export const queuedMessageSchema = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });
export type QueuedMessageDto = z.infer<typeof queuedMessageSchema>;

/**
 * Settings fields that a flag of `deepdesk serve` (or the desktop app's command line)
 * overrides for this session only: the value shown is the flag's, and saving never
 * writes it to settings.json.
 */
export const overriddenSchema = z.object({
  model: z.boolean().optional(),
  baseUrl: z.boolean().optional(),
  contextWindow: z.boolean().optional(),
  apiKey: z.boolean().optional(),
  memoriesStore: z.boolean().optional(),
});
export type OverriddenFields = z.infer<typeof overriddenSchema>;

/** The flag behind each overridable field, as the person typed it. */
export const OVERRIDE_FLAGS: Record<keyof OverriddenFields, string> = {
  model: '--model',
  baseUrl: '--base-url',
  contextWindow: '--context-window',
  apiKey: '--api-key',
  memoriesStore: '--memories-store',
};
