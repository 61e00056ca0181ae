// A thread's `files` state (SPEC §19). Deep Agents keeps the files its agent wrote in the
// thread's state values (deepagents' StateBackend), and deep-agents-ui shows them in its files
// pane; a Deepdesk thread writes into its folder instead. So the state's `files` are the files
// the thread's write and edit calls changed (a tool result carrying its change), as they are in
// the folder now, in deepagents 1.14's FileData shape, keyed by the path the agent used.

import { lstatSync, readFileSync } from 'node:fs';
import type { ChatMessage } from '../../../core/models/types';
import { inParent } from '../../../core/fs/no-follow';

/** deepagents' FileData (its v2 text format). */
export interface ProtocolFile {
  content: string;
  mimeType: 'text/plain';
  created_at: string;
  modified_at: string;
}

/** Larger files are left out of the state (a state goes whole in every `values` part). */
const MAX_FILE_BYTES = 1024 * 1024;

/** The paths a thread's messages wrote, in the order first written; read from the folder on `files`. */
export class WrittenFiles {
  private readonly paths = new Set<string>();

  add(message: ChatMessage): void {
    if (message?.role === 'tool' && typeof message.change?.path === 'string' && message.isError !== true) this.paths.add(message.change.path);
  }

  /** A stored message's JSON (threads' `readEachText`): parsed only when it may carry a change; a row that does not parse is no message. */
  addStored(json: string): void {
    if (!json.includes('"change"')) return;
    try {
      this.add(JSON.parse(json) as ChatMessage);
    } catch {
      // As load() reads it: not a message.
    }
  }

  /** The files as they are in `folder` now: one gone, not a plain file or too large is left out. */
  files(folder: string | undefined): Record<string, ProtocolFile> {
    const files: Record<string, ProtocolFile> = {};
    if (folder === undefined || folder === '') return files;
    for (const path of this.paths) {
      const file = readFile(folder, path.replace(/^\/+/, ''));
      if (file !== undefined) files[path] = file;
    }
    return files;
  }
}

/** The files `messages` wrote, as they are in `folder` now. */
export function writtenFiles(messages: readonly ChatMessage[], folder: string | undefined): Record<string, ProtocolFile> {
  const written = new WrittenFiles();
  for (const message of messages) written.add(message);
  return written.files(folder);
}

/** `rel` in `folder`, reached without following a link; undefined when it cannot be read as a plain file. */
function readFile(folder: string, rel: string): ProtocolFile | undefined {
  try {
    return inParent(folder, rel, {}, (at) => {
      const stat = lstatSync(at);
      if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
      return { content: readFileSync(at, 'utf8'), mimeType: 'text/plain' as const, created_at: stat.birthtime.toISOString(), modified_at: stat.mtime.toISOString() };
    });
  } catch {
    return undefined;
  }
}
