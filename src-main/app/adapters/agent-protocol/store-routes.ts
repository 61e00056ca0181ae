// The store (SPEC §19) over the memories store: namespace `["memories"]`, an item's key is its
// path under /memories/ (`note.md` ↔ `/memories/note.md`), its value `{"content": TEXT}`.
// The memories are the data folder's, shared by every thread and folder (SPEC §1): the store
// Settings names (this data folder's SQLite, or a team's PostgreSQL), opened per request as
// `deepdesk memories` opens it, so a change of store in Settings applies at once.
// Requests are checked as the reference checks them; what only this store refuses (another
// namespace, a key that leaves /memories/, a value without text) is a 422 and writes nothing.

import { z } from 'zod';
import { normalizeVirtualPath } from '../../../core/backends/paths';
import { openMemoriesStore } from '../../../core/backends/store/memory-store';
import { MEMORIES_NAMESPACE, type MemoryStore } from '../../../core/backends/store/memory-store-api';
import type { StorePage } from '../../../core/backends/store/store-query';
import { MEMORY_AUTHOR_USER } from '../../memories/memories-service';
import type { ProtocolContext } from './context';
import { json, ProtocolHttpError, type Route } from './http';
import { parseBody } from './validate';

const NAMESPACE = [MEMORIES_NAMESPACE] as const;

/** An item as the reference answers it. */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: { content: string };
  created_at: string;
  updated_at: string;
}

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

const isMemories = (namespace: readonly string[]) => namespace.length === 1 && namespace[0] === MEMORIES_NAMESPACE;

function onlyMemories(namespace: readonly string[]): void {
  checkNamespace(namespace);
  if (!isMemories(namespace)) throw new ProtocolHttpError(422, `Only the namespace ["memories"] is kept here (Deepdesk's /memories/); got ${JSON.stringify(namespace)}.`);
}

// eslint-disable-next-line no-control-regex -- they are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The memories store's path of `key`, which must name a file under /memories/ as it is written (`notes/a.md`). */
function storePath(key: string): string {
  const checked = normalizeVirtualPath(`/${key}`);
  // Control characters (ESC, BEL, a newline) are refused too: a memory's path is shown in terminals and lists.
  if (key === '' || key.startsWith('/') || CONTROL.test(key) || !checked.ok || checked.path !== `/${key}`) {
    throw new ProtocolHttpError(422, `The key must be a path under /memories/ such as notes.md (no '..', no leading '/', no control characters); got ${JSON.stringify(key)}.`);
  }
  return checked.path;
}

async function withMemories<T>(context: ProtocolContext, use: (store: MemoryStore) => Promise<T>): Promise<T> {
  const opened = openMemoriesStore(context.runs.savedSettings().memoriesStore, context.db, (why) =>
    context.log(`agent protocol: Settings' memories store cannot be used (${why}); memories are kept in SQLite`),
  );
  try {
    return await use(opened.store.withAuthor(MEMORY_AUTHOR_USER));
  } finally {
    await opened.store.close();
  }
}

/** The item at `path`, or null when there is none. */
async function itemAt(store: MemoryStore, path: string): Promise<StoreItem | null> {
  const raw = await store.readRaw(path);
  if (raw.error !== undefined || raw.data === undefined) return null;
  const times = (await store.read(path, 0, 1)).fileData;
  const modifiedAt = times?.modifiedAt ?? new Date(0).toISOString();
  return {
    namespace: [...NAMESPACE],
    key: path.slice(1),
    value: { content: Buffer.from(raw.data).toString('utf8') },
    created_at: times?.createdAt ?? modifiedAt,
    updated_at: modifiedAt,
  };
}

/** Whether `item` has every field of `filter` (the reference's equality filter on values). */
function passes(item: StoreItem, filter: Record<string, unknown> | undefined): boolean {
  if (filter === undefined) return true;
  return Object.entries(filter).every(([field, wanted]) => JSON.stringify((item.value as Record<string, unknown>)[field]) === JSON.stringify(wanted));
}

const PAGE = 100;

async function search(store: MemoryStore, request: z.output<typeof searchRequest>): Promise<StoreItem[]> {
  const limit = request.limit ?? 10;
  const offset = request.offset ?? 0;
  const query = request.query?.trim() ?? '';
  const found: StoreItem[] = [];
  let skipped = 0;
  for (let after = ''; ; ) {
    const page: StorePage = query === '' ? await store.listPage(after, PAGE) : await store.searchPage(query, after, PAGE);
    for (const file of page.files) {
      const item = await itemAt(store, file.path);
      if (item === null || !passes(item, request.filter)) continue;
      if (skipped < offset) skipped++;
      else found.push(item);
      if (found.length >= limit) return found;
    }
    if (page.next === null) return found;
    after = page.next;
  }
}

export function storeRoutes(context: ProtocolContext): Route[] {
  return [
    {
      method: 'PUT',
      pattern: '/store/items',
      handle: async ({ body }) => {
        const request = parseBody(putRequest, body);
        onlyMemories(request.namespace);
        const path = storePath(request.key);
        const content = request.value.content;
        if (typeof content !== 'string') throw new ProtocolHttpError(422, 'value.content must be the memory\'s text: {"content": TEXT}.');
        const written = await withMemories(context, (store) => store.write(path, content));
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
        if (!isMemories(namespace)) return json(null);
        const path = storePath(request.key);
        return json(await withMemories(context, (store) => itemAt(store, path)));
      },
    },
    {
      method: 'DELETE',
      pattern: '/store/items',
      handle: async ({ body }) => {
        const request = parseBody(deleteRequest, body);
        onlyMemories(request.namespace ?? []);
        const path = storePath(request.key);
        // As the reference: deleting what is not there succeeds.
        await withMemories(context, (store) => store.delete(path));
        return { kind: 'empty', status: 204 };
      },
    },
    {
      method: 'POST',
      pattern: '/store/items/search',
      handle: async ({ body }) => {
        const request = parseBody(searchRequest, body);
        if (request.namespace_prefix.length > 0) checkNamespace(request.namespace_prefix);
        const under = request.namespace_prefix.length === 0 || isMemories(request.namespace_prefix);
        return json({ items: under ? await withMemories(context, (store) => search(store, request)) : [] });
      },
    },
    {
      method: 'POST',
      pattern: '/store/namespaces',
      handle: async ({ body }) => {
        const request = parseBody(namespacesRequest, body);
        if (request.prefix) checkNamespace(request.prefix);
        if (request.suffix) checkNamespace(request.suffix);
        const fits = (part: readonly string[] | undefined) => part === undefined || isMemories(part);
        const listed = fits(request.prefix) && fits(request.suffix) && (request.max_depth === undefined || request.max_depth >= 1) && (request.offset ?? 0) === 0 && (request.limit ?? 100) > 0;
        return json({ namespaces: listed ? [[...NAMESPACE]] : [] });
      },
    },
  ];
}
