// The store (SPEC §19) over the memories' records (SPEC §25): namespace `["memories"]` is the
// project's memories (`/memories/`), `["memories", "global"]` every project's
// (`/memories/global/`); an item's key is its path inside its scope (`note.md` ↔
// `/memories/note.md`), its value `{"content": TEXT, "status": "active"|"proposed"}`.
//
// The project: a store request names no thread or assistant (the SDK's store calls carry none),
// so it is the project of the folder the host serves (`--folder`, or Settings › Agent Protocol's
// default folder; a worktree's is its person's folder's), as a protocol run there sees it. A host
// serving no folder keeps only `["memories", "global"]`: a request naming `["memories"]` is a 422
// saying so, and searches list global items alone.
//
// A put is a protocol client's write: proposed unless review is off (Settings › Memories), then
// stored and shown to the person, used nowhere until approved. Reads and searches list active
// memories; the one proposal they show is a protocol client's own (clients share the one key, so
// any client's), on a GET of its key while it is that key's latest version (so a client sees what
// it wrote, marked `proposed`). A client's later put or delete of the key takes back its earlier
// proposal, as a thread's does. A delete is at once, as the person's. The store is the one Settings names (this data folder's SQLite, or a
// team's PostgreSQL), opened per request, so a change in Settings applies at once.
// Requests are checked as the reference checks them; what only this store refuses (another
// namespace, a key that leaves its scope, a value without text) is a 422 and writes nothing.

import { z } from 'zod';
import { normalizeVirtualPath } from '../../../core/backends/paths';
import { openMemoriesStore } from '../../../core/backends/store/memory-store';
import { MEMORIES_NAMESPACE, type MemoryStore } from '../../../core/backends/store/memory-store-api';
import type { StorePage } from '../../../core/backends/store/store-query';
import { GLOBAL_FOLDER } from '../../../core/memories/memories-backend';
import type { MemoryBook } from '../../../core/memories/memory-book';
import { GLOBAL_SCOPE, type MemoryScope } from '../../../core/memories/memory-types';
import { openMemoryBook } from '../../../core/memories/open-memory-book';
import { asMemoryWriter, type MemoryWriteContext } from '../../../core/memories/write-context';
import { memoryProjectOf } from '../../session/session-mounts';
import type { ProtocolContext } from './context';
import { json, ProtocolHttpError, type Route } from './http';
import { parseBody } from './validate';

const GLOBAL_LABEL = 'global';

type Scope = 'project' | 'global';

/** An item as the reference answers it. */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: { content: string; status: 'active' | 'proposed' };
  created_at: string;
  updated_at: string;
}

/** Who writes over the protocol: a client nothing vouches for, so its write is proposed unless review is off. */
const PROTOCOL_CLIENT: MemoryWriteContext = {
  writer: { kind: 'protocol-client' },
  sources: () => ['protocol client'],
  personText: () => '',
};

const putRequest = z.object({
  namespace: z.array(z.string()),
  key: z.string(),
  value: z.record(z.string(), z.unknown()),
  index: z.unknown().optional(),
  ttl: z.unknown().optional(),
});

const deleteRequest = z.object({ namespace: z.array(z.string()).optional(), key: z.string() });

const getQuery = z.object({ namespace: z.string().optional(), key: z.string() });

const searchRequest = z.object({
  namespace_prefix: z.array(z.string()),
  filter: z.record(z.string(), z.unknown()).optional(),
  limit: z.number().optional(),
  offset: z.number().optional(),
  query: z.string().optional(),
  refresh_ttl: z.unknown().optional(),
});

const namespacesRequest = z.object({
  prefix: z.array(z.string()).optional(),
  suffix: z.array(z.string()).optional(),
  max_depth: z.number().optional(),
  limit: z.number().optional(),
  offset: z.number().optional(),
});

/** The reference's namespace rules: present, and no label empty or with a period. */
function checkNamespace(namespace: readonly string[]): void {
  if (namespace.length === 0) throw new ProtocolHttpError(400, 'Namespace is required');
  if (namespace.some((label) => label === '' || label.includes('.'))) {
    throw new ProtocolHttpError(422, `Namespace labels cannot be empty or contain periods. Received: ${namespace.join('.')}`);
  }
}

function scopeNamed(namespace: readonly string[]): Scope | undefined {
  if (namespace[0] !== MEMORIES_NAMESPACE) return undefined;
  if (namespace.length === 1) return 'project';
  return namespace.length === 2 && namespace[1] === GLOBAL_LABEL ? 'global' : undefined;
}

const namespaceOf = (scope: Scope): string[] => (scope === 'project' ? [MEMORIES_NAMESPACE] : [MEMORIES_NAMESPACE, GLOBAL_LABEL]);

/** The scope a put or delete names, or a 422 that writes nothing. */
function writableScope(namespace: readonly string[]): Scope {
  checkNamespace(namespace);
  const scope = scopeNamed(namespace);
  if (scope === undefined) {
    throw new ProtocolHttpError(422, `Only the namespaces ["memories"] (the project's /memories/) and ["memories", "global"] (/memories/global/) are kept here; got ${JSON.stringify(namespace)}.`);
  }
  return scope;
}

// eslint-disable-next-line no-control-regex -- they are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The path inside its scope of `key`, which must name a file there as it is written (`notes/a.md`). */
function scopePath(scope: Scope, key: string): string {
  const checked = normalizeVirtualPath(`/${key}`);
  // Control characters (ESC, BEL, a newline) are refused too: a memory's path is shown in terminals and lists.
  if (key === '' || key.startsWith('/') || CONTROL.test(key) || !checked.ok || checked.path !== `/${key}`) {
    throw new ProtocolHttpError(422, `The key must be a path under /memories/ such as notes.md (no '..', no leading '/', no control characters); got ${JSON.stringify(key)}.`);
  }
  if (scope === 'project' && (checked.path === '/global' || checked.path.startsWith(GLOBAL_FOLDER))) {
    throw new ProtocolHttpError(422, `/memories/global/ is the namespace ["memories", "global"]: put ${JSON.stringify(key.slice(GLOBAL_FOLDER.length - 1))} there; got ${JSON.stringify(key)} in ["memories"].`);
  }
  return checked.path;
}

/** The path in /memories/ the memories backend takes. */
const innerPath = (scope: Scope, path: string) => (scope === 'global' ? GLOBAL_FOLDER.slice(0, -1) + path : path);

/** The memories of one request: the book of the host's project over the store Settings names. */
interface Memories {
  book: MemoryBook;
  /** False when the host serves no folder: `["memories"]` names no project then. */
  hasProject: boolean;
}

/** A book whose project scope no request reaches (each one naming it is refused first). */
const NO_PROJECT = '(no folder)';

async function withMemories<T>(context: ProtocolContext, use: (memories: Memories) => Promise<T>): Promise<T> {
  const settings = context.runs.savedSettings();
  const opened = openMemoriesStore(settings.memoriesStore, context.db, (why) =>
    context.log(`agent protocol: Settings' memories store cannot be used (${why}); memories are kept in SQLite`),
  );
  try {
    const folder = context.defaultFolder;
    const projectKey = folder === undefined ? NO_PROJECT : memoryProjectOf(context.db, folder);
    const book = await openMemoryBook({ store: opened.store, db: context.db, projectKey, review: () => settings.memories?.review ?? 'person' });
    return await use({ book, hasProject: folder !== undefined });
  } finally {
    await opened.store.close();
  }
}

function needProject(memories: Memories, scope: Scope): void {
  if (scope === 'project' && !memories.hasProject) {
    throw new ProtocolHttpError(422, 'This host serves no folder, so ["memories"] names no project: start it with --folder DIR (or set Settings › Agent Protocol › Default folder). ["memories", "global"] is every project\'s.');
  }
}

const memoryScope = (book: MemoryBook, scope: Scope): MemoryScope => (scope === 'global' ? GLOBAL_SCOPE : book.projectScope);

/** The active memory at `path` of a scope, or null when there is none. */
async function activeItem(store: MemoryStore, scope: Scope, path: string): Promise<StoreItem | null> {
  const raw = await store.readRaw(path);
  if (raw.error !== undefined || raw.data === undefined) return null;
  const times = (await store.read(path, 0, 1)).fileData;
  const modifiedAt = times?.modifiedAt ?? new Date(0).toISOString();
  return {
    namespace: namespaceOf(scope),
    key: path.slice(1),
    value: { content: Buffer.from(raw.data).toString('utf8'), status: 'active' },
    created_at: times?.createdAt ?? modifiedAt,
    updated_at: modifiedAt,
  };
}

/** A protocol client's proposal at `path` while it is the latest version there. */
function clientProposal(book: MemoryBook, scope: Scope, path: string): StoreItem | null {
  const latest = book.records.latest(memoryScope(book, scope), path);
  if (latest?.status !== 'proposed' || latest.writer.kind !== 'protocol-client') return null;
  return { namespace: namespaceOf(scope), key: path.slice(1), value: { content: latest.content ?? '', status: 'proposed' }, created_at: latest.at, updated_at: latest.at };
}

/** Takes back the protocol clients' proposals waiting at `path` (a later put or delete replaces them). */
function withdrawClientProposals(book: MemoryBook, scope: Scope, path: string): void {
  const s = memoryScope(book, scope);
  for (const v of book.records.pending(s)) {
    if (v.path === path && v.writer.kind === 'protocol-client' && v.thread === null) book.records.setStatus(s, path, v.version, 'superseded');
  }
}

/** Whether `item` has every field of `filter` (the reference's equality filter on values). */
function passes(item: StoreItem, filter: Record<string, unknown> | undefined): boolean {
  if (filter === undefined) return true;
  return Object.entries(filter).every(([field, wanted]) => JSON.stringify((item.value as Record<string, unknown>)[field]) === JSON.stringify(wanted));
}

/** Whether `namespace` starts with `prefix` (`*` matches any label, as the reference's). */
const startsWith = (namespace: readonly string[], prefix: readonly string[]) =>
  prefix.length <= namespace.length && prefix.every((label, i) => label === '*' || label === namespace[i]);

const endsWith = (namespace: readonly string[], suffix: readonly string[]) => startsWith([...namespace].reverse(), [...suffix].reverse());

/** The scopes a request may reach, in the order items are listed. */
const reachable = (hasProject: boolean): Scope[] => (hasProject ? ['project', 'global'] : ['global']);

const PAGE = 100;

async function search(memories: Memories, request: z.output<typeof searchRequest>): Promise<StoreItem[]> {
  const limit = request.limit ?? 10;
  const offset = request.offset ?? 0;
  const query = request.query?.trim() ?? '';
  const found: StoreItem[] = [];
  let skipped = 0;
  for (const scope of reachable(memories.hasProject).filter((s) => startsWith(namespaceOf(s), request.namespace_prefix))) {
    const store = memories.book.storeOf(memoryScope(memories.book, scope));
    for (let after = ''; ; ) {
      const page: StorePage = query === '' ? await store.listPage(after, PAGE) : await store.searchPage(query, after, PAGE);
      for (const file of page.files) {
        const item = await activeItem(store, scope, file.path);
        if (item === null || !passes(item, request.filter)) continue;
        if (skipped < offset) skipped++;
        else found.push(item);
        if (found.length >= limit) return found;
      }
      if (page.next === null) break;
      after = page.next;
    }
  }
  return found;
}

function namespaces(hasProject: boolean, request: z.output<typeof namespacesRequest>): string[][] {
  const seen = new Map<string, string[]>();
  for (const scope of reachable(hasProject)) {
    const namespace = namespaceOf(scope);
    if (request.prefix !== undefined && !startsWith(namespace, request.prefix)) continue;
    if (request.suffix !== undefined && !endsWith(namespace, request.suffix)) continue;
    const shown = request.max_depth !== undefined ? namespace.slice(0, request.max_depth) : namespace;
    if (shown.length > 0) seen.set(shown.join('.'), shown);
  }
  const offset = request.offset ?? 0;
  return [...seen.values()].slice(offset, offset + (request.limit ?? 100));
}

export function storeRoutes(context: ProtocolContext): Route[] {
  return [
    {
      method: 'PUT',
      pattern: '/store/items',
      handle: async ({ body }) => {
        const request = parseBody(putRequest, body);
        const scope = writableScope(request.namespace);
        const path = scopePath(scope, request.key);
        const content = request.value.content;
        if (typeof content !== 'string') throw new ProtocolHttpError(422, 'value.content must be the memory\'s text: {"content": TEXT}.');
        const written = await withMemories(context, async (memories) => {
          needProject(memories, scope);
          withdrawClientProposals(memories.book, scope, path);
          return memories.book.person.writeAs(innerPath(scope, path), content, PROTOCOL_CLIENT);
        });
        if (written.error !== undefined) throw new ProtocolHttpError(422, written.error);
        return { kind: 'empty', status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/store/items',
      handle: async ({ query }) => {
        const request = parseBody(getQuery, Object.fromEntries(query));
        const namespace = request.namespace?.split('.') ?? [];
        // As the reference: an item in no namespace it holds is `null`, not an error.
        const scope = scopeNamed(namespace);
        if (scope === undefined) return json(null);
        const path = scopePath(scope, request.key);
        return json(await withMemories(context, async (memories) => {
          needProject(memories, scope);
          return clientProposal(memories.book, scope, path) ?? activeItem(memories.book.storeOf(memoryScope(memories.book, scope)), scope, path);
        }));
      },
    },
    {
      method: 'DELETE',
      pattern: '/store/items',
      handle: async ({ body }) => {
        const request = parseBody(deleteRequest, body);
        const scope = writableScope(request.namespace ?? []);
        const path = scopePath(scope, request.key);
        await withMemories(context, async (memories) => {
          needProject(memories, scope);
          withdrawClientProposals(memories.book, scope, path);
          // As the reference: deleting what is not there succeeds.
          await asMemoryWriter(PROTOCOL_CLIENT, () => memories.book.person.delete(innerPath(scope, path)));
        });
        return { kind: 'empty', status: 204 };
      },
    },
    {
      method: 'POST',
      pattern: '/store/items/search',
      handle: async ({ body }) => {
        const request = parseBody(searchRequest, body);
        if (request.namespace_prefix.length > 0) checkNamespace(request.namespace_prefix);
        return json({ items: await withMemories(context, (memories) => search(memories, request)) });
      },
    },
    {
      method: 'POST',
      pattern: '/store/namespaces',
      handle: async ({ body }) => {
        const request = parseBody(namespacesRequest, body);
        if (request.prefix) checkNamespace(request.prefix);
        if (request.suffix) checkNamespace(request.suffix);
        return json({ namespaces: namespaces(context.defaultFolder !== undefined, request) });
      },
    },
  ];
}
