// What this version does not do on a remote folder (SPEC §13), said once in one line where it
// opens: the folder's own configuration is read through the trust gate from the local disk,
// and checkpoints scan the local disk, so neither runs on a folder that lives elsewhere.

/** The one notice line for a remote folder (`dev@box:/srv/proj`). */
export function remoteFolderLimitsNotice(label: string): string {
  return `${label} is a remote folder: its own configuration (.mcp.json, hooks, skills) is not loaded and its changes are not checkpointed in this version.`;
}

/** The Changes panel's line for a remote folder while checkpoints do not record it. */
export const REMOTE_CHECKPOINTS_OFF = 'Checkpoints are not recorded for a remote folder in this version.';
