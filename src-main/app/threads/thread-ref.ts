// A thread as a person names it on the command line: its whole id, or a beginning of it that
// no other thread shares, as git takes a commit's (`deepdesk attach 3f2a91c0`). The one
// resolver of every command that takes THREAD (attach, stop, threads export, worktrees apply
// and rm), and the short ids `deepdesk agents` prints.

import { ContractError } from '../contract';
import type { ThreadStore } from './thread-store';

/** Shorter beginnings than this name a thread only when they are its whole id. */
const MIN_PREFIX = 4;
/** Short ids are at least this long (more where two threads share their beginning). */
export const SHORT_ID_LENGTH = 8;
/** Candidates listed when a beginning is shared. */
const LISTED = 10;

export type ThreadMatch = { kind: 'one'; id: string } | { kind: 'none' } | { kind: 'many'; ids: string[] };

export function matchThread(store: ThreadStore, ref: string): ThreadMatch {
  if (store.exists(ref)) return { kind: 'one', id: ref };
  if (ref.length < MIN_PREFIX) return { kind: 'none' };
  const ids = store.idsStartingWith(ref, LISTED + 1);
  if (ids.length === 0) return { kind: 'none' };
  return ids.length === 1 ? { kind: 'one', id: ids[0]! } : { kind: 'many', ids };
}

/** The thread's whole id; ContractError `not_found` when none is named, `bad_request` (listing them) when several are. */
export function resolveThread(store: ThreadStore, ref: string): string {
  const match = matchThread(store, ref);
  if (match.kind === 'one') return match.id;
  throw match.kind === 'none' ? new ContractError(`no thread '${ref}'`, 'not_found') : ambiguous(ref, match.ids);
}

/** The error for a beginning several threads share. */
export function ambiguous(ref: string, ids: readonly string[]): ContractError {
  const listed = ids.slice(0, LISTED).join(', ') + (ids.length > LISTED ? ', …' : '');
  return new ContractError(`'${ref}' is the beginning of more than one thread (${listed}): give more of the id`, 'bad_request');
}

/** The shortest beginning of `id`, at least SHORT_ID_LENGTH long, that names it alone. */
export function shortThreadId(store: ThreadStore, id: string): string {
  for (let length = SHORT_ID_LENGTH; length < id.length; length++) {
    if (store.idsStartingWith(id.slice(0, length), 2).length <= 1) return id.slice(0, length);
  }
  return id;
}
