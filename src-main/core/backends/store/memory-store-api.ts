import type { Backend } from '../protocol';
import type { StorePage } from './store-query';

/** The store namespace of /memories/. */
export const MEMORIES_NAMESPACE = 'memories';

/** What /memories/ needs of a store besides the Backend protocol (the window's panel, authorship). */
export interface MemoryStore extends Backend {
  listPage(after: string, limit: number): Promise<StorePage>;
  searchPage(query: string, after: string, limit: number): Promise<StorePage>;
  /** The same store recording `author` as the writer (a thread id, or 'user'). */
  withAuthor(author: string): MemoryStore;
  close(): void | Promise<void>;
}
