// Who wrote each line of a file (SPEC §24), from the checkpoint log: the file's recorded
// states replayed in order, each step's added lines given to its thread (with the step's model,
// or another agent's name), the person's checkpoints and whatever differs from the last
// recorded state to the person; lines already there before Deepdesk first saw the file, or
// changed by a command whose changes could not be told from the person's, are unknown.

import { diffArrays } from 'diff';
import { sha256 } from './scan';
import { isBinary, storedText } from './stored-text';
import type { CheckpointStore, PathStep } from './store';
import type { FileState } from './types';

export type LineAuthorKind = 'agent' | 'person' | 'unknown';

export interface LineAuthor {
  /** 1-based. */
  line: number;
  kind: LineAuthorKind;
  thread?: string;
  model?: string;
  /** Another agent's name (SPEC §22), e.g. `claude-code`; absent for Deepdesk's own threads. */
  agent?: string;
}

type Author = Omit<LineAuthor, 'line'>;

const UNKNOWN: Author = { kind: 'unknown' };
const PERSON: Author = { kind: 'person' };

/** Lines as git counts them: split at '\n' (a '\r' stays with its line), no empty line after a last newline. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Authors of the lines of `content` (the working tree's file, or its version in a commit),
 * `file` relative to `folder`. Binary content has no lines.
 */
export function lineAuthors(store: CheckpointStore, folder: string, file: string, content: Buffer): LineAuthor[] {
  if (isBinary(content)) return [];
  const steps = store.pathHistory(folder, file);
  // Replayed from the first recorded state: what was there before is unknown.
  let lines: string[] = steps.length > 0 ? textOf(store, steps[0]!.before) : [];
  let authors: Author[] = lines.map(() => UNKNOWN);
  // A state seen again (a restore, an undo) takes back the authors it had.
  const seen = new Map<string, Author[]>();
  let last = steps[0]?.before?.hash;
  for (const step of steps) {
    // A change between two recorded states that no checkpoint holds (the person's, collected as garbage) is the person's.
    if (step.before?.hash !== last) {
      const before = textOf(store, step.before);
      authors = carry(lines, authors, before, PERSON);
      lines = before;
    }
    last = step.after?.hash;
    const after = textOf(store, step.after);
    const known = step.after?.hash !== undefined ? seen.get(step.after.hash) : undefined;
    if (known !== undefined && known.length === after.length) authors = known;
    else authors = carry(lines, authors, after, authorOf(store, step));
    lines = after;
    if (step.after?.hash !== undefined) seen.set(step.after.hash, authors);
  }
  const now = linesOf(content.toString('utf8'));
  // A state recorded earlier (a commit's, changed since) has its authors; whatever else differs from the last recorded state is the person's.
  const known = seen.get(sha256(content));
  authors = known?.length === now.length ? known : carry(lines, authors, now, steps.length > 0 ? PERSON : UNKNOWN);
  return authors.map((a, i) => ({ line: i + 1, ...a }));
}

/** `after`'s authors: lines kept from `before` keep theirs, added ones are `by`'s. */
function carry(before: readonly string[], authors: readonly Author[], after: readonly string[], by: Author): Author[] {
  const out: Author[] = [];
  let i = 0;
  for (const part of diffArrays(before as string[], after as string[])) {
    const n = part.count ?? part.value.length;
    if (part.removed) i += n;
    else if (part.added) for (let k = 0; k < n; k++) out.push(by);
    else for (let k = 0; k < n; k++) out.push(authors[i++] ?? UNKNOWN);
  }
  return out;
}

function authorOf(store: CheckpointStore, step: PathStep): Author {
  const c = step.checkpoint;
  if (c.kind === 'person') return PERSON;
  if (c.threadId === null || c.unattributed) return UNKNOWN;
  // A step without its model (an Apply of a worktree, a restore) has its thread's latest.
  const model = c.model ?? store.threadModel(c.threadId);
  const agent = c.tool?.startsWith('agent:') ? c.tool.slice('agent:'.length) : undefined;
  return { kind: 'agent', thread: c.threadId, ...(model !== null && model !== undefined ? { model } : {}), ...(agent !== undefined ? { agent } : {}) };
}

function textOf(store: CheckpointStore, state: FileState | null): string[] {
  return linesOf(storedText(store, state) ?? '');
}
