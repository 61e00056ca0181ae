// A headless run's folder and its session: the sandbox worktree of a `--sandbox` run, and the
// host's warm session for the folder and the run's flags when it is still fresh (session-pool.ts),
// else one opened now with them.

import { realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parseMountFlags } from '../../core/backends/mounts/mount-flags';
import { langsmithConfig } from '../../core/telemetry/langsmith-config';
import { openWithSystem } from '../base/open-external';
import { overSettingsFlags } from '../base/session-flags';
import { parseFolderLocation } from '../places/folder-location';
import { SandboxStore } from '../sandboxes/sandbox-store';
import { sandboxWorkFolder } from '../sandboxes/sandbox-request';
import { openFolderSession, type FolderSession } from './folder-session';
import { projectOfWorktree } from './session-mounts';
import type { HeadlessRunContext, HeadlessRunRequest } from './run-request';
import { NoticeRoute, type KeptSession } from './session-pool';

/** A `--sandbox` run's folder: the worktree that runs in the sandbox (made, or found again by the sandbox's id). */
export async function inSandboxFolder(request: HeadlessRunRequest, context: HeadlessRunContext, say: (line: string) => void): Promise<{ request: HeadlessRunRequest; abandon?: () => Promise<void> }> {
  if (request.sandbox === undefined) return { request };
  const made = await sandboxWorkFolder({ folder: request.folder, cwd: request.cwd, sandbox: request.sandbox, env: request.env, nameHint: request.prompt }, context, say);
  return { request: { ...request, folder: made.folder }, abandon: made.abandon };
}

/**
 * The run's folder session: the host's warm one for this folder and these flags when it is
 * still what opening it now would make (session-pool.ts), else one opened now. `release`
 * gives it back for the next run (`reuse`: the run ended cleanly) or closes it.
 */
export async function runSession(request: HeadlessRunRequest, context: HeadlessRunContext, say: (line: string) => void): Promise<{ session: FolderSession; release: (reuse: boolean) => Promise<void> }> {
  const pool = context.sessions;
  const key = pool !== undefined ? warmKey(request) : undefined;
  if (pool === undefined || key === undefined) {
    const session = await openRunSession(request, context, say);
    return { session, release: () => session.close() };
  }
  let kept = pool.take(key);
  if (kept === undefined) {
    const route = new NoticeRoute();
    route.to(say);
    const session = await openRunSession(request, context, (line) => route.say(line));
    kept = keptSession(session, route, request, context);
  } else kept.route.to(say);
  const taken = kept;
  return {
    session: taken.session,
    release: async (reuse) => {
      taken.route.to(undefined);
      if (!reuse || taken.session.place.provider !== undefined || taken.session.place.localPath === undefined) return taken.session.close();
      try {
        // What closing would have sent: the ledger's last rows, the exporters' spans, the notes of the run's commits (SPEC §24).
        await taken.session.audit.flush();
        await taken.session.noteCommits();
      } catch {
        return taken.session.close();
      }
      pool.give(key, taken);
    },
  };
}

/** The data folder's files a session reads when it opens (their stores then follow them live): a change to one, and a kept session is opened again. */
const SESSION_FILES = ['settings.json', 'trust.json', 'folder-modes.json', 'extensions.json', 'mcp-folders.json', 'mcp.json'];

/**
 * What a warm session of this run is kept under: the run's place, flags, mode and environment;
 * undefined for a run whose session is not kept (a remote folder, a provider's sandbox,
 * `--trust`'s grants of the folder as it is now, LangSmith's git facts read once).
 */
function warmKey(request: HeadlessRunRequest): string | undefined {
  if (request.sandbox !== undefined || request.trust === true || langsmithConfig(request.env) !== undefined) return undefined;
  const place = parseFolderLocation(request.folder, request.cwd);
  if (place.kind !== 'local') return undefined;
  const env = Object.entries(request.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([place, overSettingsFlags(request), parseMountFlags(request.mounts ?? [], request.cwd), request.mcpConfig ?? [], request.mode, request.cwd, env]);
}

/** A session opened for a run, with what decides whether the next run may have it. */
function keptSession(session: FolderSession, route: NoticeRoute, request: HeadlessRunRequest, context: HeadlessRunContext): KeptSession {
  const { dataDir, db } = context;
  const place = parseFolderLocation(request.folder, request.cwd);
  const files = () => SESSION_FILES.map((name) => fileKey(join(dataDir, name))).join('|');
  const opened = { files: files(), project: localProject(db, session) };
  return {
    session,
    route,
    stillFresh: () =>
      place.kind === 'local' &&
      session.place.localPath !== undefined &&
      realpathSync(place.path) === session.place.localPath &&
      new SandboxStore(db).get(session.place.localPath) === undefined &&
      files() === opened.files &&
      localProject(db, session) === opened.project,
    // The hooks' problems are read when the session opens; the rest of the folder's configuration at every use.
    refresh: () => session.extensions.extensions.reload(),
  };
}

function localProject(db: Database.Database, session: FolderSession): string | undefined {
  return session.place.localPath !== undefined ? projectOfWorktree(db, session.place.localPath) : undefined;
}

/** A file as it is on disk now (identity, size, times), or that it is missing. */
function fileKey(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'missing';
  }
}

/** The run's folder, opened with its flags. */
export function openRunSession(request: HeadlessRunRequest, context: HeadlessRunContext, say: (line: string) => void): Promise<FolderSession> {
  return openFolderSession({
    place: parseFolderLocation(request.folder, request.cwd),
    flags: {
      ...(context.reviewer !== undefined ? { reviewerChoice: context.reviewer } : {}),
      ...overSettingsFlags(request),
      mounts: parseMountFlags(request.mounts ?? [], request.cwd),
      mcpConfig: request.mcpConfig ?? [],
      trust: request.trust === true,
    },
    policy: { mode: request.mode, wording: 'command' },
    context: { ...context, env: request.env, openBrowser: openWithSystem, notice: (problem) => say(problem.message) },
  });
}
