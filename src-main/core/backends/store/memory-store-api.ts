import type { Backend } from '../protocol';
import type { StorePage } from './store-query';

/** Told of a file's change as it is made: its new text (null: deleted) and what it was. */
export type StoreChangeHook = (path: string, content: string | null, previous: { content: string; modifiedAt: string; modifiedBy: string | null } | null) => void;

/** The store namespace of /memories/. */
export const MEMORIES_NAMESPACE = 'memories';

/** What /memories/ needs of a store besides the Backend protocol (the window's panel, authorship). */
export interface MemoryStore extends Backend {
  readonly namespace: string;
  listPage(after: string, limit: number): Promise<StorePage>;
  searchPage(query: string, after: string, limit: number): Promise<StorePage>;
  /** The same store recording `author` as the writer; `onChange` is told of each change inside its transaction. */
  withAuthor(author: string, onChange?: StoreChangeHook): MemoryStore;
  /** The same database's files of another namespace (a memory scope). */
  inNamespace(namespace: string): MemoryStore;
  close(): void | Promise<void>;
}
