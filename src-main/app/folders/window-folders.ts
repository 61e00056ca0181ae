// What both transports serve: the app of the open folder, and opening another one in its
// place (issue 16). Started without a folder (`deepdesk serve` or `npm start` with none), it
// answers only the folder methods (app.info says `folder: null`) and the window offers
// `Open folder`; once one is opened, every other request goes to that folder's app. Opening a
// folder builds its app first and only then closes the previous one, so a folder that cannot
// be opened leaves the window where it was. Every window hears `app.folderChanged`.
//
// Notices about the person's files (settings, keys, modes, the recent folders) are kept here,
// once each: a folder opened later does not tell the same problem again.
//
// A folder is a local path or an `ssh://` URL (SPEC §13): a remote one is opened by
// `openRemoteApp`, which connects and checks it on the remote; the window's `Open remote
// folder` dialog offers the Host aliases of the person's ~/.ssh/config.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { App } from '../window/folder-app';
import { badRequestOn, ContractError, type AppInfo, type EventFrame, type EventName, type EventPayload, type MethodName, type NoticeDto, type Params } from '../contract';
import type { WindowApi } from '../base/window-api';
import type { JsonFileProblem } from '../../core/config/json-file-store';
import { isSshFolder, sshTargetLabel } from '../../core/backends/remote/ssh-target';
import { SshConnectionError } from '../../core/backends/remote/ssh-connection';
import { sshConfigHosts } from '../../core/backends/remote/ssh-config-hosts';
import { RemoteFolderError } from '../places/folder-backend';
import { notApplicableUpdates, updateMethods, type UpdateService } from '../base/updates';
import { FolderLocationError, folderLocationName, remoteFolderLocation, sshFolderLocation, type FolderLocation, type SshFolderLocation } from '../places/folder-location';
import { checkFolder, RecentFolders, typedFolderPath } from '../places/recent-folders';
import { AgentBoard } from '../session/agent-board';
import { CheckpointStore } from '../../core/checkpoints/store';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { CandidateRecords } from '../threads/candidate-records';
import { ThreadStore } from '../threads/thread-store';
import { RunRecords } from '../threads/run-records';
import { rankCandidateSet } from '../session/candidate-ranking';
import type { RankingEntry } from '../contract/agents';
import { openDatabase } from '../../core/backends/store/store';
import { databasePath } from '../base/data-dir';
import { WorktreeService } from '../worktrees/worktree-service';
import { SandboxStore } from '../sandboxes/sandbox-store';
import { PROVIDER_LABELS as SANDBOX_PROVIDER_LABELS } from '../../core/sandbox-providers/provider';
import { ledgerReader } from '../../core/telemetry/usage-ledger';
import { ledgerPrices } from '../usage/usage-report';
import { NO_SECRETS, SettingsService } from '../settings/settings-service';

const BOARD_COALESCE_MS = 150;

/** A folder as Deepdesk keeps it (a checked path, or an `ssh://` URL) as a location to open. */
function savedLocation(folder: string): FolderLocation {
  return isSshFolder(folder) ? sshFolderLocation(folder) : { kind: 'local', path: folder };
}

/** A set of candidates as the Agents view compares them (SPEC §21). */
interface CandidateSets {
  compare(setId: string): Promise<{ goal: string; ranking: RankingEntry[] }>;
  diff(threadId: string): Promise<{ diff: string; truncated: boolean }>;
  apply(threadId: string): Promise<{ applied: string[]; conflicts: string[] }>;
  discard(threadId: string): Promise<{ removed: boolean }>;
}

/** The Agents view's list on its own connection to the data folder's database, each thread's worktree named. */
function openBoard(dataDir: string): { board: AgentBoard; sets: CandidateSets; close(): void } {
  const db = openDatabase(databasePath(dataDir));
  const worktrees = new WorktreeService({ dataDir, db });
  const sandboxes = new SandboxStore(db);
  // Priced as the Usage view prices them: a price set in Settings reaches calls made without one.
  // settings.json is read again only when it changed on disk. The ledger is only read here.
  const settings = new SettingsService(dataDir, NO_SECRETS);
  const ledger = ledgerReader(db, ...ledgerPrices(() => settings.raw()));
  const threads = new ThreadStore(db);
  const checkpoints = CheckpointStore.open(dataDir);
  const history = new CheckpointHistory(checkpoints);
  const board = new AgentBoard(db, {
    costOf: (threadId) => ledger.threadCost(threadId),
    unreviewedOf: (threadId) => history.hasUnreviewed(threadId, threads.reviewedHunks(threadId)),
    worktreeOf: (folder) => {
      const record = worktrees.byFolder(folder);
      return record === undefined ? undefined : { name: record.name, branch: record.branch, originFolder: record.originFolder };
    },
    sandboxOf: (folder) => {
      const record = sandboxes.get(folder);
      return record?.sandboxId ? { provider: record.provider, label: SANDBOX_PROVIDER_LABELS[record.provider], sandboxId: record.sandboxId } : undefined;
    },
  });
  const members = new CandidateRecords(db);
  const runs = new RunRecords(db);
  /** A candidate's worktree, by its thread's folder. */
  const worktreeOfThread = (threadId: string) => {
    const folder = threads.get(threadId)?.folder;
    const record = folder === undefined || members.get(threadId) === undefined ? undefined : worktrees.byFolder(folder);
    if (record === undefined) throw new ContractError(`thread '${threadId}' is not a candidate with a worktree`, 'not_found');
    return record;
  };
  const sets: CandidateSets = {
    async compare(setId) {
      // The host's ranking once the set ended; while it runs, the set as it stands, ranked the same way.
      const set = members.set(setId)?.ranking ?? (await rankCandidateSet({ candidates: members, threads, runs, worktrees, costOf: (threadId) => ledger.threadCost(threadId), ignoredChanges: (threadId) => history.ignoredChanges(threadId, '') }, setId));
      if (set === undefined) throw new ContractError(`there is no set of candidates '${setId}'`, 'not_found');
      // Those applied to the person's folder: Compare offers no second Apply of them.
      const applied = set.ranking.filter((e) => {
        const folder = threads.get(e.threadId)?.folder;
        return folder !== undefined && (worktrees.byFolder(folder)?.appliedAt ?? null) !== null;
      });
      return { goal: set.goal, ranking: set.ranking, applied: applied.map((e) => e.threadId) };
    },
    diff: (threadId) => worktrees.diff(worktreeOfThread(threadId).name),
    async apply(threadId) {
      const result = await worktrees.apply(worktreeOfThread(threadId).name);
      return { applied: result.applied, conflicts: result.conflicts };
    },
    async discard(threadId) {
      const result = await worktrees.remove(worktreeOfThread(threadId).name, { force: true });
      return { removed: result.removed };
    },
  };
  return {
    board,
    sets,
    close() {
      board.close();
      settings.close();
      worktrees.close();
      checkpoints.close();
      db.close();
    },
  };
}

export interface WindowFoldersOptions {
  dataDir: string;
  transport: 'electron' | 'web';
  version?: string;
  /** The folder to open at start (absolute and existing, or an `ssh://` URL); null: none, the window offers Open folder. */
  folder: string | null;
  /** Builds the app of one local folder (its own notices are collected from it). */
  openApp: (folder: string) => Promise<App>;
  /**
   * Builds the app of a remote folder: connects, checks the folder there (rejecting with a
   * RemoteFolderError or an SshConnectionError that says why) and builds its app (openRemoteApp
   * of app/places/remote-folder.ts).
   */
  openRemoteApp: (location: SshFolderLocation) => Promise<App>;
  /** The desktop app's native folder dialog; null when the person cancels. */
  pickFolder?: () => Promise<string | null>;
  /** Told each notice once, as it happens (`serve` prints them). */
  onNotice?: (notice: NoticeDto) => void;
  /** Where `~` and relative typed paths start, and whose ~/.ssh/config lists the hosts (default: the home folder). */
  home?: string;
  /** Read for DEEPDESK_SSH_CONFIG (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The desktop app's updater; without one, updates are `not-applicable`. */
  updates?: UpdateService;
  /** Starts a set of candidates on a local folder in the agent host (app/session/candidate-sets.ts); without it, the window cannot. */
  startCandidates?: (folder: string, params: Params<'agentsView.runCandidates'>) => Promise<{ setId: string; threadIds: string[] }>;
}

export interface WindowFolders extends WindowApi {
  /** Whether the window shows `folder`'s threads: the open folder, or the one open beside it. */
  shows(folder: string): boolean;
  /** A notice from the host itself (e.g. the window's page crashed and was reloaded). */
  notice(message: string): void;
  close(): Promise<void>;
}

export async function createWindowFolders(options: WindowFoldersOptions): Promise<WindowFolders> {
  const listeners = new Set<(frame: EventFrame) => void>();
  const send = <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    for (const listener of listeners) listener({ event, payload });
  };

  const notices: NoticeDto[] = [];
  const noticePrefix = randomUUID().slice(0, 8);
  const addNotice = (notice: Omit<NoticeDto, 'id'> & { id?: string }): void => {
    if (notices.some((n) => n.message === notice.message)) return;
    // A folder's notice that arrives after another folder opened is not about the open one.
    if (notice.folder !== undefined && notice.folder !== current?.folder && notice.folder !== opening) return;
    const dto: NoticeDto = { ...notice, id: notice.id ?? `${noticePrefix}-recent-${notices.length + 1}` };
    notices.push(dto);
    options.onNotice?.(dto);
    send('app.notice', dto);
  };
  const fileProblem = (problem: JsonFileProblem): void =>
    addNotice({ message: problem.message, file: problem.file, needsAnswer: true, ...(problem.movedTo !== undefined ? { movedTo: problem.movedTo } : {}) });
  /** The notices about folders other than `folder` leave (the window drops them on app.folderChanged). */
  const keepNoticesOf = (folder: string): void => {
    for (let i = notices.length - 1; i >= 0; i--) if (notices[i]!.folder !== undefined && notices[i]!.folder !== folder) notices.splice(i, 1);
  };
  const recent = new RecentFolders(options.dataDir, { onProblem: fileProblem });

  let current: { folder: string; location: FolderLocation; app: App; stopEvents: () => void } | null = null;
  /** A folder open beside the window's (a candidate's worktree): the requests and events of its threads only. */
  let beside: { folder: string; app: App; stopEvents: () => void } | null = null;
  /** Stops following a folder's app and gives it back (one another window holds stays open). */
  const release = async (last: { folder: string; app: App; stopEvents: () => void } | null): Promise<void> => {
    last?.stopEvents();
    await last?.app.close().catch((err: unknown) => console.error(`deepdesk: closing ${last.folder} failed`, err));
  };
  const closeBeside = (): Promise<void> => {
    const last = beside;
    beside = null;
    return release(last);
  };
  /** The folder whose app is being built (its notices are kept). */
  let opening: string | null = null;
  /** The open-folder operations in turn; requests for the folder's app wait for the one under way. */
  let switching: Promise<unknown> = Promise.resolve();

  const info = (): AppInfo => ({
    folder: current?.folder ?? null,
    folderName: current ? folderLocationName(current.location) : '',
    version: options.version ?? '0.0.0',
    transport: options.transport,
    canPickFolder: options.pickFolder !== undefined,
    ...(current?.location.kind === 'ssh' ? { host: sshTargetLabel(current.location.target) } : {}),
    ...(current?.app.sandbox ? { sandbox: current.app.sandbox } : {}),
  });

  const remember = (folder: string): void => {
    try {
      recent.remember(folder);
    } catch (err) {
      addNotice({ message: `The recent folders list could not be saved (${err instanceof Error ? err.message : String(err)}); ${folder} is open all the same.` });
    }
  };

  /** `reopen`: made anew even when open (its place changed: Continue in a sandbox…). */
  const open = async (location: FolderLocation, reopen = false): Promise<AppInfo> => {
    const folder = location.kind === 'local' ? location.path : location.url;
    if (current?.folder === folder) {
      if (!reopen) {
        remember(folder);
        return info();
      }
      // Its place changed (Continue in a sandbox…): the app is given back first, so that one is made anew
      // (one another window holds, or whose runs go, stays as it is until they end).
      const previous = current;
      current = null;
      await release(previous);
    }
    opening = folder;
    try {
      return await openApp(folder, location);
    } finally {
      opening = null;
    }
  };

  const openApp = async (folder: string, location: FolderLocation): Promise<AppInfo> => {
    const app = await appOf(location);
    const stopEvents = app.onEvent((frame) => {
      if (frame.event === 'app.notice') addNotice(frame.payload as NoticeDto);
      else for (const listener of listeners) listener(frame);
    });
    try {
      for (const notice of (await app.handle('app.notices', {})) as NoticeDto[]) addNotice(notice);
    } catch (err) {
      stopEvents();
      await app.close().catch(() => undefined);
      throw err;
    }
    const previous = current;
    current = { folder, location, app, stopEvents };
    keepNoticesOf(folder);
    remember(folder);
    if (previous !== null) {
      await closeBeside();
      await release(previous);
    }
    const now = info();
    // The data folder has its database now: the Agents view can be watched.
    boardNow();
    send('app.folderChanged', now);
    return now;
  };

  const openBeside = async (folder: string, location: FolderLocation): Promise<AppInfo> => {
    if (beside?.folder !== folder) {
      const app = await appOf(location);
      await closeBeside();
      // Only what is about one of its threads: its files, notices and lists are not the window's folder's.
      const stopEvents = app.onEvent((frame) => {
        if (typeof (frame.payload as { threadId?: unknown } | null)?.threadId === 'string') for (const listener of listeners) listener(frame);
      });
      beside = { folder, app, stopEvents };
    }
    return info();
  };

  const appOf = (location: FolderLocation): Promise<App> => {
    if (location.kind !== 'local') return openRemote(location);
    checkFolder(location.path);
    return options.openApp(location.path);
  };

  const openRemote = async (location: SshFolderLocation): Promise<App> => {
    try {
      return await options.openRemoteApp(location);
    } catch (err) {
      if (err instanceof RemoteFolderError) throw new ContractError(err.message, err.code);
      // Their messages name the host; the window puts the first letter in capitals.
      if (err instanceof SshConnectionError) throw new ContractError(err.message, 'failed');
      throw err;
    }
  };

  /** The sets of candidates, over the Agents view's connection. */
  const setsNow = (): CandidateSets => {
    if (boardNow() === undefined || ownBoard === undefined) throw new ContractError('there are no candidates in this data folder yet', 'not_found');
    return ownBoard.sets;
  };

  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = switching.then(work);
    switching = result.catch(() => undefined);
    return result;
  };

  // The Agents view's list, on its own connection to the data folder's database: opened on the first look at it once the data folder has a database (nothing
  // is made in the data folder before a folder is opened).
  let ownBoard: { board: AgentBoard; sets: CandidateSets; close(): void } | undefined;
  let stopBoard: (() => void) | undefined;
  // A burst of record changes (a run's start, its approvals) is one re-list for the window.
  let boardTimer: NodeJS.Timeout | undefined;
  const boardNow = (): AgentBoard | undefined => {
    if (ownBoard === undefined) {
      if (!existsSync(databasePath(options.dataDir))) return undefined;
      ownBoard = openBoard(options.dataDir);
    }
    const { board } = ownBoard;
    stopBoard ??= board.onChange(() => {
      if (boardTimer !== undefined) return;
      boardTimer = setTimeout(() => {
        boardTimer = undefined;
        send('agentsView.changed', {});
      }, BOARD_COALESCE_MS);
    });
    return board;
  };

  const updates = options.updates ?? notApplicableUpdates(options.version ?? '0.0.0');
  const stopUpdateEvents = updates.onChange((status) => send('updates.changed', status));

  const home = options.home ?? homedir();
  /** What the person typed or picked: an `ssh://` URL, or a path (`~` and relative ones from the home folder). */
  const typedLocation = (typed: string): FolderLocation => {
    if (!isSshFolder(typed.trim())) return { kind: 'local', path: typedFolderPath(typed, home) };
    return badRequestOn(FolderLocationError, () => sshFolderLocation(typed.trim()));
  };

  if (options.folder !== null) {
    try {
      await open(savedLocation(options.folder));
    } catch (err) {
      recent.close();
      throw err;
    }
  }

  const own: Partial<Record<MethodName, (params: unknown) => Promise<unknown>>> = {
    'app.info': async () => {
      await switching;
      return info();
    },
    'app.notices': async () => [...notices],
    'app.recentFolders': async () => recent.list(),
    'app.openFolder': async (params) => {
      const { path, reopen } = params as Params<'app.openFolder'>;
      const location = typedLocation(path);
      return inTurn(() => open(location, reopen === true));
    },
    'app.sshHosts': async () => ({ hosts: await sshConfigHosts({ home, env: options.env ?? process.env }) }),
    'app.openRemoteFolder': async (params) => {
      const { host, path } = params as Params<'app.openRemoteFolder'>;
      const location = badRequestOn(FolderLocationError, () => remoteFolderLocation(host, path));
      return inTurn(() => open(location));
    },
    'app.pickFolder': async () => {
      if (options.pickFolder === undefined) throw new ContractError('there is no folder dialog here: type the folder’s path instead', 'failed');
      const picked = await options.pickFolder();
      if (picked === null) return { folder: null };
      await inTurn(() => open({ kind: 'local', path: picked }));
      return { folder: picked };
    },
    'agentsView.list': async () => boardNow()?.list() ?? [],
    'agentsView.open': async (params) => {
      const { threadId } = params as Params<'agentsView.open'>;
      const board = boardNow();
      const folder = board?.folderOf(threadId);
      if (board === undefined || folder === undefined) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
      const location = badRequestOn(FolderLocationError, () => savedLocation(folder));
      const info = await inTurn(() => (params as Params<'agentsView.open'>).beside === true && current !== null && current.folder !== folder ? openBeside(folder, location) : open(location));
      board.seen(threadId);
      return { info, threadId };
    },
    'agentsView.compare': async (params) => setsNow().compare((params as Params<'agentsView.compare'>).setId),
    'agentsView.candidateDiff': async (params) => setsNow().diff((params as Params<'agentsView.candidateDiff'>).threadId),
    'agentsView.applyCandidate': async (params) => setsNow().apply((params as Params<'agentsView.applyCandidate'>).threadId),
    'agentsView.runCandidates': async (params) => {
      if (options.startCandidates === undefined) throw new ContractError('candidates are run by the agent host: this window has none', 'failed');
      if (current === null || current.location.kind !== 'local') throw new ContractError('open a local folder (a git repository) to run candidates on worktrees of it', 'bad_request');
      return options.startCandidates(current.folder, params as Params<'agentsView.runCandidates'>);
    },
    'agentsView.discardCandidate': async (params) => setsNow().discard((params as Params<'agentsView.discardCandidate'>).threadId),
    ...updateMethods(updates),
  };

  return {
    shows: (folder) => folder === current?.folder || folder === beside?.folder,
    notice(message) {
      addNotice({ message });
    },
    async handle(method, params) {
      const answer = own[method];
      if (answer !== undefined) return answer(params);
      await switching;
      if (current === null) throw new ContractError('No folder is open yet: open one first.', 'failed');
      const threadId = (params as { threadId?: unknown } | null)?.threadId;
      if (beside !== null && typeof threadId === 'string' && boardNow()?.folderOf(threadId) === beside.folder) return beside.app.handle(method, params);
      return current.app.handle(method, params);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await switching;
      await closeBeside();
      const last = current;
      current = null;
      if (last !== null) {
        last.stopEvents();
        await last.app.close();
      }
      recent.close();
      stopUpdateEvents();
      stopBoard?.();
      if (boardTimer !== undefined) clearTimeout(boardTimer);
      ownBoard?.close();
      listeners.clear();
    },
  };
}
