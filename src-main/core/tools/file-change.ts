// What a write_file or edit_file did to its file, for the window's card (SPEC §6): whether it
// created the file, and the hunks of the change with the file's real line numbers and three
// lines of context. Kept with the tool result in the thread's history, so the card shows the
// real diff after an edited approval and after a reload. Bounded: a huge file or change is
// described without (all of) its hunks.

import { structuredPatch } from 'diff';
import type { Backend } from '../backends/protocol';
import type { TextHunk } from '../text/unified-diff';

export interface FileChangeSummary {
  path: string;
  /** The file did not exist before. */
  created: boolean;
  hunks: TextHunk[];
  added: number;
  removed: number;
  /** The hunks were left out or cut (a file or change too large to keep whole). */
  truncated?: boolean;
}

/** Texts larger than this are not diffed (the card says the change is too large to show). */
export const MAX_DIFF_CHARS = 1_000_000;
/** At most this many diff lines are kept. */
export const MAX_DIFF_LINES = 2_000;

/** A file as it is at one moment: absent, or there with its text (null when too large or unreadable to diff). */
export type FileText = { exists: false } | { exists: true; text: string | null };

/** The change from `before` to `after`; null when there is no file after it. */
export function describeChange(path: string, before: FileText, after: FileText): FileChangeSummary | null {
  if (!after.exists) return null;
  const created = !before.exists;
  const old = before.exists ? before.text : '';
  if (old === null || after.text === null) return { path, created, hunks: [], added: 0, removed: 0, truncated: true };
  const patch = structuredPatch('a', 'b', normalize(old), normalize(after.text), '', '', { context: 3 });
  const hunks: TextHunk[] = [];
  let added = 0;
  let removed = 0;
  let kept = 0;
  let truncated = false;
  for (const hunk of patch.hunks) {
    const lines = hunk.lines.filter((l) => !l.startsWith('\\'));
    for (const line of lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
    if (kept + lines.length > MAX_DIFF_LINES) {
      truncated = true;
      continue;
    }
    kept += lines.length;
    hunks.push({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines });
  }
  return { path, created, hunks, added, removed, ...(truncated ? { truncated } : {}) };
}

/** The file at `path` now (through the backend, as the tools see it). */
export async function fileText(backend: Backend, path: string): Promise<FileText> {
  const found = await backend.stat(path);
  if (found.error !== undefined || found.info === undefined) return { exists: false };
  if (found.info.isDir === true) return { exists: true, text: null };
  if ((found.info.size ?? 0) > MAX_DIFF_CHARS) return { exists: true, text: null };
  const raw = await backend.readRaw(path);
  if (raw.error !== undefined || raw.data === undefined) return { exists: true, text: null };
  const text = Buffer.from(raw.data).toString('utf8');
  return { exists: true, text: text.length > MAX_DIFF_CHARS ? null : text };
}

/** Line endings do not make a diff line. */
function normalize(text: string): string {
  return text.replace(/\r\n/g, '\n');
}
