// The folder's approval mode (SPEC §7), saved per folder in `<data-dir>/folder-modes.json`,
// with whether the person chose it yet and whether the "no sandbox here" notice was shown.
// A worktree or sandbox folder of a project has the project's mode and answer to the offer
// until one is chosen there; the offer is answered once per project.
// `auto` needs a sandbox: it cannot be chosen without one, and a saved `auto` acts as `ask`
// where the sandbox is gone. The file is a JsonFileStore: an unreadable one is kept aside
// and told, each folder's record is checked on its own, and a mode set in another window
// reaches this one (mode.changed).
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_MODE, isApprovalMode, type ApprovalMode } from '../../core/agent/permissions/modes';
import type { SandboxAvailability } from '../../core/sandbox/types';
import type { SandboxProviderName } from '../../core/sandbox-providers/provider';
import { approvalModeSchema, ContractError, type ModeState } from '../contract';
import { JsonFileStore, recordShape, type JsonFileProblem } from '../../core/config/json-file-store';
import { realOrSelf } from '../../core/config/entry-files';

/** Whether commands are contained here: an OS sandbox, or a provider's sandbox (SPEC §18). */
export type PlaceSandboxStatus = SandboxAvailability | { available: true; kind: SandboxProviderName };

const folderRecordSchema = z.object({
  mode: approvalModeSchema.optional(),
  sandboxNoticeShown: z.boolean().optional(),
  offerShown: z.boolean().optional(),
  offerDismissed: z.boolean().optional(),
});
type FolderRecord = z.output<typeof folderRecordSchema>;

export class ModeService {
  private readonly store: JsonFileStore<Record<string, FolderRecord>>;
  private readonly key: string;
  private readonly projectKey: string | undefined;
  private readonly listeners = new Set<(state: ModeState) => void>();
  private last: string | undefined;

  constructor(
    dataDir: string,
    folder: string,
    private readonly sandbox: PlaceSandboxStatus,
    options: {
      onProblem?: (problem: JsonFileProblem) => void;
      /**
       * The project folder this one is a worktree (or sandbox folder) of: what was not answered
       * here is the project's answer, and the offer answered here is answered for the project.
       */
      project?: string;
    } = {},
  ) {
    this.store = new JsonFileStore({
      path: join(dataDir, 'folder-modes.json'),
      shape: recordShape(folderRecordSchema),
      defaultsText: `every folder's approval mode is back to ${DEFAULT_MODE} until you choose one again`,
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    });
    this.key = realOrSelf(folder);
    const project = options.project === undefined ? undefined : realOrSelf(options.project);
    this.projectKey = project !== undefined && project !== this.key ? project : undefined;
    this.last = JSON.stringify(this.get());
    // Another window (or process) on this data folder may set this folder's mode.
    this.store.onChange(() => this.notify());
  }

  /** The mode in force. */
  current(): ApprovalMode {
    const stored = this.record().mode;
    if (!isApprovalMode(stored)) return DEFAULT_MODE;
    return stored === 'auto' && !this.sandbox.available ? DEFAULT_MODE : stored;
  }

  get(): ModeState {
    const record = this.record();
    return {
      mode: this.current(),
      chosen: isApprovalMode(record.mode),
      sandbox: this.sandbox.available ? { available: true, kind: this.sandbox.kind } : { available: false, reason: this.sandbox.reason },
      sandboxNoticeShown: record.sandboxNoticeShown === true,
      offerShown: record.offerShown === true,
      offerDismissed: record.offerDismissed === true,
    };
  }

  set(mode: ApprovalMode): ModeState {
    if (mode === 'auto' && !this.sandbox.available) {
      throw new ContractError(`auto mode needs a sandbox, and none is available here: ${this.sandbox.reason}`, 'failed');
    }
    return this.update({ mode });
  }

  sandboxNoticeShown(): ModeState {
    return this.update({ sandboxNoticeShown: true });
  }

  /** The window opened the offer of modes by itself (once per folder), or the person dismissed it. */
  offer(event: 'shown' | 'dismissed'): ModeState {
    const patch = event === 'shown' ? { offerShown: true } : { offerShown: true, offerDismissed: true };
    if (this.projectKey !== undefined) this.updateKey(this.projectKey, patch);
    return this.update(patch);
  }

  onChange(listener: (state: ModeState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.store.close();
    this.listeners.clear();
  }

  /** Saves onto the file as it is now (under its lock); throws when it could not be written. */
  private update(patch: FolderRecord): ModeState {
    this.updateKey(this.key, patch);
    // The store told onChange already when something changed.
    return this.get();
  }

  private updateKey(key: string, patch: FolderRecord): void {
    this.store.update((all) => ({ ...all, [key]: { ...(Object.hasOwn(all, key) ? all[key] : {}), ...patch } }));
  }

  private notify(): void {
    const state = this.get();
    const text = JSON.stringify(state);
    if (text === this.last) return;
    this.last = text;
    for (const listener of this.listeners) listener(state);
  }

  /** This folder's record, over its project's (a worktree's mode and offer are the project's until chosen here). */
  private record(): FolderRecord {
    const all = this.store.current();
    const own = Object.hasOwn(all, this.key) ? (all[this.key] ?? {}) : {};
    if (this.projectKey === undefined || !Object.hasOwn(all, this.projectKey)) return own;
    const project = all[this.projectKey] ?? {};
    return {
      ...own,
      mode: own.mode ?? project.mode,
      offerShown: own.offerShown === true || project.offerShown === true,
      offerDismissed: own.offerDismissed === true || project.offerDismissed === true,
    };
  }
}

