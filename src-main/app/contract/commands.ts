// Slash commands in the contract (SPEC §11): what counts as one, shared by the window (its
// `/` list, its sending) and the app. Renderer-safe: no imports.

const COMMAND = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+([\s\S]*))?$/;

/** The command a message starts with, or null when it is no command (plain text, a path such as `/etc/hosts …`). */
export function parseSlash(text: string): { name: string; args: string } | null {
  const match = COMMAND.exec(text.trim());
  return match ? { name: match[1]!, args: (match[2] ?? '').trim() } : null;
}
