// The contract's update shapes (issue 25): Settings › Updates shows the version, a
// `Check for updates` button and what the last check found. Only the desktop app updates
// itself, and only from a configured publish target; the served window says it does not
// apply. Renderer-safe: zod only.
import { z } from 'zod';

export const updateStateSchema = z.enum([
  /** The served window: updates come with the installed copy, not through the page. */
  'not-applicable',
  /** The desktop app without a publish target (or run from a checkout): `message` says why. */
  'off',
  'idle',
  'checking',
  'up-to-date',
  'available',
  'downloading',
  /** Ready: installed on restart (updates.install restarts now). */
  'downloaded',
  'error',
]);

export const updateStatusSchema = z.object({
  currentVersion: z.string(),
  state: updateStateSchema,
  /** Whether `Check for updates` can do anything here. */
  canCheck: z.boolean(),
  /** One line for the person: why updates are off, or what the last check found. */
  message: z.string(),
  /** The newer version found, when there is one. */
  availableVersion: z.string().optional(),
  /** When the last check ended (ISO 8601). */
  checkedAt: z.string().optional(),
});
export type UpdateStatus = z.infer<typeof updateStatusSchema>;

export const updateMethods = {
  'updates.status': { params: z.object({}).strict(), result: updateStatusSchema },
  /** Checks now; resolves with the status the check ended in. */
  'updates.check': { params: z.object({}).strict(), result: updateStatusSchema },
  /** Quits and installs a downloaded update (state `downloaded`); refused otherwise. */
  'updates.install': { params: z.object({}).strict(), result: z.object({ ok: z.literal(true) }) },
} as const;

export type UpdateMethodName = keyof typeof updateMethods;

export const updateEvents = {
  'updates.changed': updateStatusSchema,
} as const;
