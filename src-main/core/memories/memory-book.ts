// What the person does with memories (SPEC §25), wherever they do it (the window, the CLI,
// the Agent Protocol's store): write and delete as themselves, read a memory's history and
// restore a version, answer proposals, move a memory between the project and global scopes.
// Paths are as the agent sees them: `/memories/x.md`, `/memories/global/x.md`.

import type { MemoryStore } from '../backends/store/memory-store-api';
import { MemoriesBackend, type MemoriesBackendOptions, type MemoryPlace } from './memories-backend';
import { GLOBAL_SCOPE, type MemoryAction, type MemoryScope, type MemoryVersion, type MemoryWriter } from './memory-types';
import type { MemoryRecords } from './memory-records';
import { asMemoryWriter, type MemoryWriteContext } from './write-context';

export const MEMORIES_ROOT = '/memories';

export class MemoryBookError extends Error {
  constructor(message: string, readonly code: 'not_found' | 'bad_request' | 'failed') {
    super(message);
  }
}

/** A proposal waiting for the person, with the path it would take. */
export interface PendingMemory extends MemoryVersion {
  /** `/memories/x.md` or `/memories/global/x.md`. */
  shownPath: string;
}

export class MemoryBook {
  /** The person's view: no thread's proposals in it. */
  readonly person: MemoriesBackend;

  constructor(private readonly options: Omit<MemoriesBackendOptions, 'thread'>) {
    this.person = new MemoriesBackend(options);
  }

  get records(): MemoryRecords {
    return this.options.records;
  }

  get projectScope(): MemoryScope {
    return this.options.projectScope;
  }

  /** A thread's /memories/ (its own proposals shown to it). */
  forThread(thread: string): MemoriesBackend {
    return new MemoriesBackend({ ...this.options, thread });
  }

  /** The store of a scope (paths inside it). */
  storeOf(scope: MemoryScope): MemoryStore {
    return scope === GLOBAL_SCOPE ? this.options.global : this.options.project;
  }

  /** `/memories/x.md` → its place; a path outside /memories/ or a folder is refused. */
  placeOf(shown: string): MemoryPlace {
    const inner = innerPath(shown);
    const place = this.person.place(inner);
    if ('error' in place) throw new MemoryBookError(place.error, 'bad_request');
    if (place.path === '/') throw new MemoryBookError('a memory path names a file, e.g. /memories/notes.md', 'bad_request');
    return place;
  }

  shown(scope: MemoryScope, path: string): string {
    return MEMORIES_ROOT + this.person.shownPath(scope, path);
  }

  async write(shown: string, text: string, writer: MemoryWriter = { kind: 'person' }, action: MemoryAction = 'write'): Promise<void> {
    this.placeOf(shown);
    const res = await this.person.writeAs(innerPath(shown), text, personal(writer), action);
    if (res.error !== undefined) throw new MemoryBookError(res.error, 'failed');
  }

  async delete(shown: string): Promise<void> {
    this.placeOf(shown);
    const res = await asMemoryWriter(personal({ kind: 'person' }), () => this.person.delete(innerPath(shown)));
    if (res.error !== undefined) throw new MemoryBookError(res.error.replace(innerPath(shown), shown), 'not_found');
  }

  history(shown: string): MemoryVersion[] {
    const place = this.placeOf(shown);
    return this.options.records.history(place.scope, place.path);
  }

  /** Brings version `version` back as a new version (a delete's version deletes). */
  async restore(shown: string, version: number): Promise<void> {
    const old = this.history(shown).find((v) => v.version === version);
    if (old === undefined) throw new MemoryBookError(`${shown} has no version ${version}`, 'not_found');
    if (old.content === null) return this.delete(shown);
    await this.write(shown, old.content, { kind: 'person' }, 'restore');
  }

  /** Every proposal waiting, in both scopes. */
  pending(): PendingMemory[] {
    return [this.options.projectScope, GLOBAL_SCOPE].flatMap((scope) =>
      this.options.records.pending(scope).map((v) => ({ ...v, shownPath: this.shown(scope, v.path) })));
  }

  /** The person approves a proposal (the latest at `shown`, or `version`), as it is or with `text` instead. */
  async approve(shown: string, options: { version?: number; text?: string } = {}): Promise<void> {
    const proposal = this.proposal(shown, options.version);
    const place = this.placeOf(shown);
    await this.write(shown, options.text ?? proposal.content ?? '', { kind: 'person' }, 'approve');
    this.options.records.setStatus(place.scope, place.path, proposal.version, 'approved');
    this.options.changed?.();
  }

  reject(shown: string, version?: number): void {
    const proposal = this.proposal(shown, version);
    const place = this.placeOf(shown);
    this.options.records.setStatus(place.scope, place.path, proposal.version, 'rejected');
    this.options.changed?.();
  }

  /** Moves a memory to the other scope (its history stays with the old path; the new one starts with the move). */
  async move(shown: string, to: 'global' | 'project'): Promise<string> {
    const place = this.placeOf(shown);
    const target = to === 'global' ? GLOBAL_SCOPE : this.options.projectScope;
    if (target === place.scope) return shown;
    const raw = await place.store.readRaw(place.path);
    if (raw.data === undefined) throw new MemoryBookError(`${shown} does not exist`, 'not_found');
    const destination = this.shown(target, place.path);
    if ((await this.storeOf(target).stat(place.path)).info !== undefined) throw new MemoryBookError(`${destination} already exists`, 'failed');
    await this.write(destination, new TextDecoder().decode(raw.data), { kind: 'person' }, 'move');
    await this.delete(shown);
    return destination;
  }

  private proposal(shown: string, version: number | undefined): MemoryVersion {
    const place = this.placeOf(shown);
    const waiting = this.options.records.pending(place.scope).filter((v) => v.path === place.path && (version === undefined || v.version === version));
    const proposal = waiting[waiting.length - 1];
    if (proposal === undefined) throw new MemoryBookError(`no proposed memory at ${shown}${version !== undefined ? ` with version ${version}` : ''}`, 'not_found');
    return proposal;
  }

}

/** `/memories/x.md` (or `/x.md`, `x.md`) → `/x.md` inside /memories/. */
export function innerPath(shown: string): string {
  const p = shown.trim().replace(/^\/*/, '/');
  if (p === MEMORIES_ROOT || p === `${MEMORIES_ROOT}/`) return '/';
  return p.startsWith(`${MEMORIES_ROOT}/`) ? p.slice(MEMORIES_ROOT.length) : p;
}

function personal(writer: MemoryWriter): MemoryWriteContext {
  return { writer, sources: () => [], personText: () => '' };
}
