// Where /memories/ lives (SPEC §13 "Shared memories"): the local SQLite store, or a
// PostgreSQL database a team shares (`--memories-store postgres://…`). Both are a
// MemoryStore: the Backend protocol plus what the window's Memories panel and authorship need.

import type Database from 'better-sqlite3';
import { StoreBackend } from './store';
import { PostgresStoreBackend, redactUrl } from './store-postgres';
import { DEFAULT_MEMORIES_STORE, memoriesStoreTextError } from './memories-store-text';
import { MEMORIES_NAMESPACE, type MemoryStore } from './memory-store-api';

export type MemoriesStoreSpec = { kind: 'sqlite' } | { kind: 'postgres'; url: string };

export class MemoriesStoreSpecError extends Error {}

/** `sqlite`, or a `postgres://` / `postgresql://` URL with a host (and usually a database). */
export function parseMemoriesStore(text: string): MemoriesStoreSpec {
  const given = text.trim();
  if (given === '' || given.toLowerCase() === 'sqlite') return { kind: 'sqlite' };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(given)?.[1]?.toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new MemoriesStoreSpecError(`memories store '${redactUrl(given)}' is neither 'sqlite' nor a postgres:// URL`);
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new MemoriesStoreSpecError(`memories store '${redactUrl(given)}' is not a valid URL`);
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new MemoriesStoreSpecError(`memories store '${redactUrl(given)}' names no host (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)`);
  }
  return { kind: 'postgres', url: given };
}

/** For messages and the window: `sqlite (local)` or the URL without its password. */
export function describeMemoriesStore(spec: MemoriesStoreSpec): string {
  return spec.kind === 'sqlite' ? 'sqlite (local)' : redactUrl(spec.url);
}

/** The store for /memories/; a PostgreSQL store connects on first use, never here. */
export function openMemoryStore(spec: MemoriesStoreSpec, opts: { db: Database.Database; namespace: string; author?: string }): MemoryStore {
  const author = opts.author !== undefined ? { author: opts.author } : {};
  if (spec.kind === 'sqlite') return new StoreBackend({ db: opts.db, namespace: opts.namespace, ...author });
  return new PostgresStoreBackend({ url: spec.url, namespace: opts.namespace, label: `memories store ${redactUrl(spec.url)}`, ...author });
}

export interface OpenedMemories {
  store: MemoryStore;
  /** For messages and the window: the store without its password. */
  label: string;
  /** Whether it is shared (PostgreSQL) rather than this computer's SQLite. */
  shared: boolean;
}

/**
 * The store behind /memories/ that the person's text names (`--memories-store`, Settings;
 * undefined or '' → SQLite). A text that cannot name one (checked as the window checks it:
 * no password in it) is told through `problem`, and SQLite serves instead.
 */
export function openMemoriesStore(text: string | undefined, db: Database.Database, problem: (why: string) => void): OpenedMemories {
  const value = text?.trim() || DEFAULT_MEMORIES_STORE;
  let spec: MemoriesStoreSpec = { kind: 'sqlite' };
  try {
    const why = memoriesStoreTextError(value);
    if (why !== null) throw new MemoriesStoreSpecError(why);
    spec = parseMemoriesStore(value);
  } catch (err) {
    if (!(err instanceof MemoriesStoreSpecError)) throw err;
    problem(err.message);
  }
  return { store: openMemoryStore(spec, { db, namespace: MEMORIES_NAMESPACE }), label: describeMemoriesStore(spec), shared: spec.kind !== 'sqlite' };
}
