// The folder's session as the window opens it: its database, the events its windows are told,
// the notices kept for windows that connect later, and the one composition
// (session/folder-session.ts) with the window's flags over Settings (window-overrides.ts).

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { type MountSpec } from '../../core/backends/mounts/mount-spec';
import { openDatabase } from '../../core/backends/store/store';
import type { JsonFileProblem } from '../../core/config/json-file-store';
import type { McpTokenStore } from '../../core/extensions/mcp/oauth';
import { databasePath } from '../base/data-dir';
import { openWithSystem } from '../base/open-external';
import type { SecretStore } from '../base/secret-store';
import type { OverSettingsFlags } from '../base/session-flags';
import type { EventFrame, EventName, EventPayload, NoticeDto } from '../contract';
import { remoteFolderConfiguration, remoteFolderLimitsNotice, type RemoteAppFolder } from '../places/remote-folder';
import { openFolderSession } from '../session/folder-session';
import { windowFlags, windowOverrides } from './window-overrides';

export interface AppOptions {
  folder: string;
  dataDir: string;
  secrets: SecretStore;
  /** Where MCP sign-in tokens are kept: the data folder's one store (data-folder-secrets.ts), shared by every client. Default `secrets`. */
  mcpTokens?: McpTokenStore;
  transport: 'electron' | 'web';
  version?: string;
  /** Session overrides from the command line (`deepdesk serve --model …`); not saved. */
  overrides?: OverSettingsFlags;
  /** `--mount` flags of `deepdesk serve` (parsed): added to Settings' mounts for this session, a flag winning at its prefix. */
  mountFlags?: readonly MountSpec[];
  env?: NodeJS.ProcessEnv;
  /** Told each notice for the person (a file kept aside, values ignored) as it happens; `serve` prints them. */
  onNotice?: (notice: NoticeDto) => void;
  /** `--mcp-config FILE` (repeatable) of `deepdesk serve`: MCP servers for this session (SPEC §10). */
  mcpConfigFiles?: readonly string[];
  /** Opens a URL in the person's browser (an MCP server's sign-in page); default: the system's opener. */
  openExternal?: (url: string) => Promise<void>;
  /** The folder is remote (SPEC §13): `folder` is its ssh:// URL, this its opened backend (closed with the app). */
  remote?: RemoteAppFolder;
}

/** A problem with one of the person's files needs their answer; a note about this folder belongs to it. */
export type NoticeInput = Omit<JsonFileProblem, 'file'> & { file?: string } & Partial<Pick<NoticeDto, 'id' | 'kind' | 'folder'>>;

/** The session, its events and notices; `close` closes the session, then the database. */
export async function openWindowSession(options: AppOptions) {
  const env = options.env ?? process.env;
  const db = openDatabase(databasePath(options.dataDir));
  const listeners = new Set<(frame: EventFrame) => void>();
  const send = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of listeners) l({ event, payload });
  };
  // Notices for the person about the app's own files: kept for windows that connect later.
  const notices: NoticeDto[] = [];
  const noticePrefix = randomUUID().slice(0, 8);
  const notice = (problem: NoticeInput): void => {
    const dto: NoticeDto = {
      id: problem.id ?? `${noticePrefix}-${notices.length + 1}`,
      message: problem.message,
      ...(problem.file !== undefined ? { file: problem.file, needsAnswer: true } : {}),
      ...(problem.movedTo !== undefined ? { movedTo: problem.movedTo } : {}),
      ...(problem.kind !== undefined ? { kind: problem.kind } : {}),
      ...(problem.folder !== undefined ? { folder: problem.folder } : {}),
    };
    notices.push(dto);
    options.onNotice?.(dto);
    send('app.notice', dto);
  };
  const stopSecretProblems = options.secrets.onProblem?.(notice);
  const { remote } = options;
  const flags = windowFlags(options.overrides);
  // The one composition: the place, Settings, the extensions through the trust gate, mounts,
  // memories, checkpoints, the audit and the models. The window adds its terminals, its
  // Settings regions and its watchers on top.
  const session = await openFolderSession({
    place: remote ? { kind: 'opened-remote', remote, url: options.folder } : { kind: 'local', path: options.folder },
    flags: { ...flags, mounts: options.mountFlags ?? [], mcpConfig: (options.mcpConfigFiles ?? []).map((f) => resolve(f)) },
    policy: { mode: 'saved', wording: 'window' },
    context: { dataDir: options.dataDir, db, env, version: options.version ?? '0.0.0', secrets: options.secrets, ...(options.mcpTokens ? { mcpTokens: options.mcpTokens } : {}), openBrowser: options.openExternal ?? openWithSystem, notice },
    onChange: { extensions: () => send('extensions.changed', {}), mcp: () => send('mcp.changed', {}) },
  }).catch((err: unknown) => {
    db.close();
    stopSecretProblems?.();
    throw err;
  });
  const overrides = windowOverrides(flags, () => session.settings.raw(), { memoriesStore: session.memories.label });
  session.settings.onChange((s) => send('settings.changed', overrides.forWindow(s)));
  // Told only when the remote folder has configuration of its own; looked for in the background.
  if (remote) {
    void remoteFolderConfiguration(remote.shell).then((found) => {
      if (found.length > 0) notice({ id: `remote-config:${options.folder}:${found.join(',')}`, message: remoteFolderLimitsNotice(remote.label, found), kind: 'info', folder: options.folder });
    });
  }
  return {
    env,
    db,
    session,
    overrides,
    send,
    onEvent(listener: (frame: EventFrame) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notice,
    notices: () => [...notices],
    async close() {
      await session.close();
      db.close();
      stopSecretProblems?.();
    },
  };
}
