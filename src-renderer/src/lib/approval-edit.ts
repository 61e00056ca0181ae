// Editing a paused call edits what matters: the command as text, a write's new content,
// an edit's old and new strings; any other tool's arguments as JSON. Pure, so the form
// and its checks are tested without a window.

export interface EditField {
  /** The argument it edits. */
  key: string;
  label: string;
  /** Rows of the editor. */
  rows: number;
}

const FIELDS: Record<string, EditField[]> = {
  execute: [{ key: 'command', label: 'Command', rows: 3 }],
  write_file: [{ key: 'content', label: 'New content', rows: 12 }],
  edit_file: [
    { key: 'old_string', label: 'Text to replace', rows: 6 },
    { key: 'new_string', label: 'Replacement text', rows: 6 },
  ],
};

const JSON_FIELD: EditField = { key: '', label: 'Arguments (JSON)', rows: 10 };

/** The editors for a call: its text arguments, or one JSON editor when they are not text. */
export function editFields(toolName: string, args: Record<string, unknown>): EditField[] {
  const fields = FIELDS[toolName];
  if (fields && fields.every((f) => typeof args[f.key] === 'string' || args[f.key] === undefined)) return fields;
  return [JSON_FIELD];
}

export function initialDrafts(fields: readonly EditField[], args: Record<string, unknown>): Record<string, string> {
  if (fields.length === 1 && fields[0]!.key === '') return { '': JSON.stringify(args, null, 2) };
  return Object.fromEntries(fields.map((f) => [f.key, typeof args[f.key] === 'string' ? (args[f.key] as string) : '']));
}

/** The edited arguments, or why they cannot be used. */
export function editedArgs(
  toolName: string,
  fields: readonly EditField[],
  args: Record<string, unknown>,
  drafts: Record<string, string>,
): { args: Record<string, unknown> } | { error: string } {
  if (fields.length === 1 && fields[0]!.key === '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(drafts[''] ?? '');
    } catch (err) {
      return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'The arguments must be a JSON object.' };
    return { args: parsed as Record<string, unknown> };
  }
  if (toolName === 'execute' && (drafts.command ?? '').trim() === '') return { error: 'The command is empty.' };
  if (toolName === 'edit_file' && (drafts.old_string ?? '') === (drafts.new_string ?? '')) return { error: 'The replacement is the same as the text it replaces.' };
  return { args: { ...args, ...drafts } };
}

/** "Always allow the command `x`…" as a checkbox label, without saying "always allow" twice. */
export function alwaysAllowLabel(description: string | undefined, fallback: string): string {
  const text = (description ?? '').trim();
  if (text === '') return `Always ${fallback.charAt(0).toLowerCase()}${fallback.slice(1)}`;
  return /^always allow\b/i.test(text) ? text : `Always allow ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

/**
 * The file after an edit_file the person edited, from the file the approval showed: so the
 * card's diff stands where the change is in the file while the call runs (its result then
 * brings the real one). Null when the edited strings do not apply to that text.
 */
export function editedAfter(before: string, args: Record<string, unknown>): string | null {
  const { old_string: oldString, new_string: newString, replace_all: replaceAll } = args;
  if (typeof oldString !== 'string' || typeof newString !== 'string' || oldString === '') return null;
  const normalized = before.replace(/\r\n/g, '\n');
  if (!normalized.includes(oldString)) return null;
  return replaceAll === true ? normalized.split(oldString).join(newString) : normalized.replace(oldString, () => newString);
}
