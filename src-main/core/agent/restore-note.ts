// The note that tells the agent about a restore (to before a message, a per-file Revert, an
// undone restore): which files changed back and how, and to when. Without it the history
// still shows the reverted writes as done and the agent builds on files that are gone.
// Also a short line of it for the window's conversation.

import type { PendingNote } from './notes';
import type { CheckpointHistory } from '../checkpoints/history';
import type { TextHunk } from '../text/unified-diff';
import type { RestoreOutcome } from '../checkpoints/restore';
import { toVirtual, type CheckpointEntry } from '../checkpoints/types';
import { oneLine } from '../text/markdown-code';

export type RestoreNoteKind = 'restore' | 'revert' | 'undo';

export interface RestoreNoteOptions {
  /** What the person did; by default read from the restore itself (one that reverts a restore undoes it). */
  kind?: RestoreNoteKind;
  /** What happened to the conversation with it (the window's "files and conversation"). */
  conversation?: 'rewound' | 'put-back' | 'not-put-back';
  /** A revert of one hunk of the file (SPEC §24): the change put back. */
  hunk?: TextHunk;
}

/** Lines of a reverted hunk told to the model. */
const HUNK_LINES = 40;

/** Files listed in the note for the model, and in the window's line. */
const MODEL_FILES = 100;
const WINDOW_FILES = 5;

type NoteInput = Omit<PendingNote, 'id' | 'createdAt'>;

/** The note of a restore that changed files; null when it changed none. */
export function restoreNote(history: CheckpointHistory, outcome: RestoreOutcome, options: RestoreNoteOptions = {}): NoteInput | null {
  const restore = outcome.checkpoint;
  if (!outcome.applied || restore === undefined) return null;
  const files = history.store
    .entries(restore)
    .flatMap((e) => fileOf(e))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (files.length === 0) return null;
  const reverted = restore.reverts.flatMap((id) => history.get(id) ?? []);
  const kind = options.kind ?? (reverted[0]?.kind === 'restore' ? 'undo' : 'restore');
  const paths = new Set(history.store.entries(restore).map((e) => e.path));
  // The earliest of the reverted steps that touched these files: the files are as they were before it.
  const since = reverted.find((c) => history.store.entries(c).some((e) => paths.has(e.path))) ?? reverted[0];

  let head: string;
  let short: string;
  if (kind === 'undo') {
    const undone = reverted[0];
    const what = undone && undone.messageLine !== '' ? ` (${undone.messageLine.startsWith('Revert ') ? quote(undone.messageLine) : `to before the user message ${quote(undone.messageLine)}`})` : '';
    head = `The person undid the restore of ${undone?.createdAt ?? restore.createdAt}${what}: these files are back as they were before that restore.`;
    short = 'Restore undone';
  } else if (kind === 'revert' && options.hunk) {
    const h = options.hunk;
    head = `The person reverted one change this thread's agent made to ${files.map((f) => f.path).join(', ')}: the lines below are back as they were before it (at line ${h.newStart}; '-' the agent's lines taken out, '+' the earlier lines put back).`;
    const shown = [...h.lines.filter((l) => l.startsWith('+')).map((l) => '-' + l.slice(1)), ...h.lines.filter((l) => l.startsWith('-')).map((l) => '+' + l.slice(1))];
    head += `\n${shown.slice(0, HUNK_LINES).join('\n')}${shown.length > HUNK_LINES ? `\n… and ${shown.length - HUNK_LINES} more lines` : ''}`;
    short = 'Reverted a change';
  } else if (kind === 'revert' && outcome.rewritten) {
    head = `The person reverted the lines this thread's agent wrote in ${files.map((f) => f.path).join(', ')}; the lines the person or other threads changed there were kept.`;
    short = 'Reverted the agent’s lines, kept the others';
  } else if (kind === 'revert') {
    const list = files.map((f) => f.path).join(', ');
    head = `The person reverted ${list} to how ${files.length === 1 ? 'it was' : 'they were'} before this thread's agent changed ${files.length === 1 ? 'it' : 'them'}${since ? ` (${since.createdAt})` : ''}.`;
    short = 'Reverted';
  } else {
    const to = restore.messageLine !== '' ? `to before the user message ${quote(restore.messageLine)}` : since ? `to before checkpoint ${since.id}` : 'to an earlier state';
    head = `The person restored files ${to}${since ? ` (${since.createdAt})` : ''}: what was changed since then is undone.`;
    short = options.conversation === 'rewound' ? 'Files and conversation restored' : 'Files restored';
    if (restore.messageLine !== '') short += ` to before ${quote(restore.messageLine, '“', '”')}`;
  }

  const lines = ['<system-reminder>', head];
  lines.push('Earlier tool results in this conversation that showed these files no longer describe them; read a file again before relying on it.');
  for (const f of files.slice(0, MODEL_FILES)) lines.push(`- ${f.path}: ${f.what}`);
  if (files.length > MODEL_FILES) lines.push(`- … and ${files.length - MODEL_FILES} more`);
  const kept = outcome.conflicts.filter((c) => !outcome.restored.includes(c.path));
  if (kept.length > 0) lines.push(`Left as they are (the person changed them since): ${kept.map((c) => toVirtual(c.path)).join(', ')}`);
  if (outcome.skipped.length > 0) lines.push(`Not restored: ${outcome.skipped.map((s) => `${toVirtual(s.path)} (${s.reason})`).join(', ')}`);
  if (options.conversation === 'rewound') lines.push('The conversation was rewound to before that message as well: it and everything after it were removed.');
  if (options.conversation === 'put-back') lines.push('The conversation that restore had rewound was put back as well.');
  if (options.conversation === 'not-put-back') lines.push('The conversation that restore had rewound was not put back: it has continued since.');
  lines.push('</system-reminder>');

  const shown = files.slice(0, WINDOW_FILES).map((f) => `${f.path} (${f.what})`);
  if (files.length > WINDOW_FILES) shown.push(`${files.length - WINDOW_FILES} more`);
  const display = `${short}: ${shown.join(', ')}.${kept.length > 0 ? ` Kept your changes to ${kept.map((c) => toVirtual(c.path)).join(', ')}.` : ''} The agent is told.`;
  return { kind: 'restore', text: lines.join('\n'), display, checkpointId: restore.id };
}

function fileOf(e: CheckpointEntry): Array<{ path: string; what: string }> {
  const type = (e.after ?? e.before)?.type;
  if (type === undefined || type === 'i') return [];
  const path = toVirtual(e.path) + (type === 'd' ? '/' : '');
  const what = e.after === null ? 'deleted' : e.before === null ? 're-created' : 'restored';
  return [{ path, what }];
}

function quote(line: string, open = "'", close = "'"): string {
  return `${open}${oneLine(line, 200)}${close}`;
}

