// THE composition (issue 50): everything a folder's threads need, assembled once for every
// client — the window, `deepdesk run`, an editor over ACP. From a folder location, a client's
// flags and its policy it opens the place (files, commands and their sandbox: local or SSH),
// Settings (read live: rules, subagents, prices, the run limit), the extensions through the one
// trust gate, the mounts and the memories store, checkpoints, the audit (ledger, traces,
// budget) and one model factory (the main model and the subagents'). A client adds only how
// it shows events and who answers approvals (`threads(client)`), and the window its Settings
// services and watchers on top of the same objects.

import { staleCheck } from '../memories/stale-check';
import { combineTelemetry } from '../../core/telemetry/observer';
import { memoryUseTelemetry } from '../memories/memory-uses';
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { withClaudeRules } from '../../core/config/claude-permissions';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import type { PermissionRule } from '../../core/agent/permissions/rules';
import type { MountSpec } from '../../core/backends/mounts/mount-spec';
import { MountTable } from '../../core/backends/mounts/mount-table';
import { openMemoriesStore, type OpenedMemories } from '../../core/backends/store/memory-store';
import type { MemoryBook } from '../../core/memories/memory-book';
import { openMemoryBook } from '../../core/memories/open-memory-book';
import { memoryProjectOf, projectOfWorktree } from './session-mounts';
import type { Backend } from '../../core/backends/protocol';
import { RemoteBackend } from '../../core/backends/remote/remote-backend';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { recorderFor, type CheckpointRecorder } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { watchCommits } from './provenance';
import type { JsonFileProblem } from '../../core/config/json-file-store';
import type { McpServerConfig } from '../../core/config/mcp-config-types';
import { transcriptsDir, transcriptWriter } from '../../core/extensions/hooks/transcript';
import type { McpTokenStore } from '../../core/extensions/mcp/oauth';
import type { ApprovalService } from '../approvals/approval-service';
import { ModeService } from '../modes/mode-service';
import { remoteConfigStandIn } from '../places/remote-folder';
import type { SecretStore } from '../base/secret-store';
import { SettingsService } from '../settings/settings-service';
import { RunAudit } from '../telemetry/run-audit';
import { openSessionExtensions, type SessionExtensions } from './session-extensions';
import { sessionModels, type ModelWording, type SessionModels } from './session-models';
import { runReviewer } from './run-reviewer';
import { openSessionPlace, placeContained, type PlaceRequest, type SessionPlace } from './session-place';
import { folderLocationText } from '../places/folder-location';
import type { OverSettingsFlags } from '../base/session-flags';
import { ThreadStore } from '../threads/thread-store';
import { gitGoalFolder, shellGoalFolder } from './goal-folder';
import { ThreadService, type ThreadServiceEvent } from './thread-service';

/** A client's flags (app/base/session-flags.ts): each applies to this session only, over what Settings saved. */
export interface SessionFlags extends OverSettingsFlags {
  /** `--mount`, parsed: added to Settings' mounts, a flag winning at its prefix. */
  mounts?: readonly MountSpec[];
  /** `--mcp-config FILE`s. */
  mcpConfig?: readonly string[];
  /** `--trust`: the folder's configuration as it is now loads for this session only. */
  trust?: boolean;
  /** MCP servers the client gives itself (an editor's). */
  extraMcpServers?: readonly McpServerConfig[];
}


/** What a client decides: the approval mode (the folder's saved one, or fixed by a flag), and how problems are worded. */
export interface SessionPolicy {
  mode: 'saved' | ApprovalMode;
  wording: ModelWording;
}

export interface SessionContext {
  dataDir: string;
  db: Database.Database;
  env: NodeJS.ProcessEnv;
  version: string;
  /** The keys Settings saves (model providers). */
  secrets: SecretStore;
  /** Where MCP sign-ins are kept: the data folder's own store, shared by every client (default `secrets`). */
  mcpTokens?: McpTokenStore;
  openBrowser: (url: string) => void | Promise<void>;
  /** A problem with one of the person's files, or a line the person should read. */
  notice(problem: Omit<JsonFileProblem, 'file'> & { file?: string; kind?: 'error' | 'info' }): void;
}

export interface FolderSessionRequest {
  place: PlaceRequest;
  flags: SessionFlags;
  policy: SessionPolicy;
  context: SessionContext;
  /** Told when the extensions or MCP servers change (the window's Settings follow). */
  onChange?: { extensions(): void; mcp(): void };
}

/** What a client adds to the session's threads: how it shows their events, who answers their approvals. */
export interface SessionClient {
  approvals: ApprovalService;
  emit(event: ThreadServiceEvent): void;
  /** The backend at `/` for a thread (the window's shows its commands in the thread's terminal); default the place's. */
  folderBackendFor?: (threadId: string) => Backend;
  /** Text deltas joined over this many milliseconds (a window: one message a frame, not one a token). */
  coalesceTextMs?: number;
}

export interface FolderSession {
  readonly place: SessionPlace;
  /** The folder's real path where its own configuration is read (a stand-in for a remote folder). */
  readonly configFolder: string;
  readonly settings: SettingsService;
  readonly extensions: SessionExtensions;
  readonly mounts: MountTable;
  readonly memories: SessionMemories;
  readonly checkpointStore: CheckpointStore;
  readonly recorder: CheckpointRecorder;
  readonly audit: RunAudit;
  /** The data folder's threads, as the audit's ledger is its calls (the thread service keeps its own book over them). */
  readonly threadStore: ThreadStore;
  readonly models: SessionModels;
  /** The folder's saved mode, when the policy follows it. */
  readonly modes: ModeService | undefined;
  /** The mode in force now. */
  mode(): ApprovalMode;
  /** The permission rules in force now: Claude Code's settings files' around the person's own (read on every call). */
  rules(): PermissionRule[];
  /** The folder's threads and their runs, shown and answered by this client. */
  threads(client: SessionClient): ThreadService;
  /** Notes the folder's new commits now (SPEC §24: a commit Deepdesk makes is noted in the same call). */
  noteCommits(): Promise<void>;
  close(): Promise<void>;
}

export async function openFolderSession(request: FolderSessionRequest): Promise<FolderSession> {
  const { flags, policy, context } = request;
  const { dataDir, db, env } = context;
  const say = (message: string, kind?: 'info') => context.notice({ message, ...(kind !== undefined ? { kind } : {}) });
  const opened: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };
  try {
    const settings = new SettingsService(dataDir, context.secrets, { onProblem: context.notice });
    opened.push(() => settings.close());
    const threadStore = new ThreadStore(db);
    // Sandbox time goes to the ledger, which opens after the place (it is told the place's kind), counted to the folder's thread that ran last.
    const opening: { audit?: RunAudit } = {};
    const place = await openSessionPlace(request.place, {
      dataDir,
      env,
      say,
      sandboxes: {
        db,
        settings: () => settings.raw().sandboxes ?? {},
        savedKeys: () => settings.sandboxKeys(),
        recordTime: (slice) => opening.audit?.recordSandboxTime({ ...slice, threadId: threadStore.latestIn(placeText(request.place)) ?? null, folder: placeText(request.place) }),
      },
    });
    const placeCloses = opened.length;
    opened.push(() => place.close());
    // A remote folder's own configuration is not read (SPEC §13): an empty local stand-in, so the person's own still loads.
    const configFolder = place.localPath ?? remoteConfigStandIn(dataDir);
    const extensions = await openSessionExtensions({
      configFolder,
      local: place.localPath !== undefined,
      dataDir,
      env,
      mcpTokens: context.mcpTokens ?? context.secrets,
      version: context.version,
      openBrowser: context.openBrowser,
      mcpConfigFiles: flags.mcpConfig ?? [],
      ...(flags.extraMcpServers ? { extraMcpServers: flags.extraMcpServers } : {}),
      trust: flags.trust === true,
      onChange: request.onChange ?? { extensions: () => undefined, mcp: () => undefined },
      onProblem: context.notice,
      onNotice: say,
    });
    opened.push(() => extensions.close());
    const mounts = new MountTable({ cacheRoot: join(dataDir, 'mounts'), flags: flags.mounts ?? [], saved: () => settings.raw().mounts, env, onProblem: say });
    opened.push(() => mounts.close());
    // The store behind /memories/ is chosen when the session opens: a change in Settings applies from the next.
    const memoriesStore = openMemoriesStore(flags.memoriesStore ?? settings.raw().memoriesStore, db, (why) => say(`The memories store cannot be used (${why}); memories are kept in SQLite for now.`));
    opened.push(() => memoriesStore.store.close());
    // The folder's project's memories (a remote folder's project is its URL).
    const book = await openMemoryBook({ store: memoriesStore.store, db, projectKey: place.localPath !== undefined ? memoryProjectOf(db, place.localPath) : place.text, review: () => settings.raw().memories?.review ?? 'person' });
    const memoryUses = memoryUseTelemetry(book);
    const memories = { ...memoriesStore, book };
    const checkStale = place.localPath !== undefined ? staleCheck(book, place.localPath) : undefined;
    void checkStale?.request();
    opened.push(() => checkStale?.settled());
    const checkpointStore = CheckpointStore.open(dataDir);
    opened.push(() => {
      try {
        new CheckpointHistory(checkpointStore).collectGarbage();
      } finally {
        checkpointStore.close();
      }
    });
    const recorder = recorderFor(checkpointStore, place.checkpointFolder);
    // A folder here, or over SSH (git there, through the script backend's place); a provider's sandbox is noted in its worktree here.
    const at = place.localPath !== undefined ? {} : place.shell instanceof RemoteBackend ? { place: place.shell.place } : undefined;
    const commits = at ? watchCommits({ store: checkpointStore, folder: recorder.root, env, settings: () => settings.raw().provenance, record: () => recorder.recordFolder(), ...at }) : undefined;
    if (commits) opened.push(() => commits.close());
    // Every client records the folder's first snapshot as it opens it (SPEC §24: its commits from then on are noted; a step waits for it).
    const baseline = new AbortController();
    const recorded = recorder.prepareBaseline(baseline.signal).catch(() => undefined);
    opened.push(() => {
      baseline.abort();
      return recorded;
    });
    const audit = await RunAudit.open({
      db,
      env,
      folder: place.text,
      ...(place.localPath !== undefined ? { localFolder: place.localPath } : {}),
      sandboxType: place.provider?.name ?? place.sandbox?.kind ?? 'none',
      version: context.version,
      settings: () => settings.raw(),
    });
    opening.audit = audit;
    // A cap raised (here, by another process, `deepdesk budget set`): a call paused at one checks again (SPEC §26).
    const stopRaises = settings.onChange(() => audit.budgets.settingsChanged());
    opened.push(() => void stopRaises());
    // Closed after the place, whose last sandbox time it records.
    opened.splice(placeCloses, 0, () => audit.close());
    const project = place.localPath !== undefined ? projectOfWorktree(db, place.localPath) : undefined;
    const modes = policy.mode === 'saved' ? new ModeService(dataDir, place.text, place.sandboxStatus, { onProblem: context.notice, ...(project !== undefined ? { project } : {}) }) : undefined;
    if (modes) opened.push(() => modes.close());
    const fixedMode = policy.mode === 'saved' ? undefined : policy.mode;
    const mode = (): ApprovalMode => fixedMode ?? modes!.current();
    const models = sessionModels({ flags, env, wording: policy.wording, settings: () => settings.raw(), apiKeyFor: (provider) => settings.apiKeyFor(provider) });
    const rules = () => withClaudeRules(extensions.extensions.claudeRules(), settings.raw().rules as PermissionRule[]);
    // A sandbox folder's hooks would have to run in the sandbox, as a remote folder's on the remote: none run.
    const hooksFolder = place.provider ? undefined : place.localPath;
    const transcripts = transcriptWriter(transcriptsDir(dataDir));

    return {
      place,
      configFolder,
      settings,
      extensions,
      mounts,
      memories,
      checkpointStore,
      recorder,
      audit,
      threadStore,
      models,
      modes,
      mode,
      rules,
      noteCommits: () => commits?.look() ?? Promise.resolve(),
      threads: (client) =>
        new ThreadService({
          db,
          folder: place.text,
          approvals: client.approvals,
          emit: client.emit,
          ...(client.coalesceTextMs !== undefined ? { coalesceTextMs: client.coalesceTextMs } : {}),
          folderBackendFor: client.folderBackendFor ?? (() => place.shell),
          createModel: () => models.main(),
          resolveModel: (spec) => models.named(spec),
          subagentModel: () => settings.raw().models?.subagent,
          contextWindow: () => models.contextWindow(),
          ...(flags.evictChars !== undefined ? { evictChars: flags.evictChars } : {}),
          rules,
          subagents: () => extensions.extensions.subagents(settings.raw().subagents),
          maxConcurrentRuns: () => settings.raw().maxConcurrentRuns,
          audit: async (state, scope) => {
            const options = await audit.runOptions(state, scope);
            return { ...options, telemetry: combineTelemetry([options.telemetry, memoryUses])! };
          },
          lastRunUsage: (threadId) => audit.ledger.lastTurn(threadId),
          threadCost: (threadId) => audit.ledger.threadCost(threadId),
          mode,
          sandboxAvailable: () => placeContained(place),
          ...(place.provider ? { providerSandbox: { label: place.provider.label, workdir: place.provider.workdir, ...(place.provider.uploadSummary !== undefined ? { uploadSummary: place.provider.uploadSummary } : {}) } } : {}),
          checkpoints: recorder,
          checkpointStore,
          mcp: extensions.hub,
          skills: { source: () => extensions.extensions.skills(), onListing: (listing) => extensions.extensions.noteListing(listing) },
          // A remote folder's hooks would have to run there: only a local folder's run (SPEC §13).
          ...(hooksFolder !== undefined ? { hooks: { hooks: () => extensions.extensions.hooks(), folder: hooksFolder, mode, env, transcripts } } : {}),
          mounts: { routes: () => mounts.routes(), git: () => mounts.gitMounts() },
          memories: memories.book,
          ...(checkStale ? { afterRun: () => void checkStale.request() } : {}),
          touched: (threadId) => audit.budgets.touched(threadId),
          // A goal's diff is the folder's git: here for a folder on this computer, and for a
          // provider's sandbox its worktree here (the sandbox's work comes back to it after each
          // step); over SSH, git there through the thread's own command path.
          goalFolder: place.localPath !== undefined ? gitGoalFolder(place.localPath, env) : shellGoalFolder(place.shell),
          goalMaxRounds: () => settings.raw().goals?.maxRounds,
          graderModel: async () => {
            const spec = settings.raw().goals?.graderModel;
            return spec ? models.named(spec) : undefined;
          },
          mainModel: () => models.main(),
          reviewer: runReviewer(models, () => settings.raw(), flags.reviewerChoice, place.text),
        }),
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The store behind /memories/ and the folder's memories over it (SPEC §25). */
export type SessionMemories = OpenedMemories & { book: MemoryBook };

function placeText(place: PlaceRequest): string {
  return place.kind === 'opened-remote' ? place.url : folderLocationText(place);
}

