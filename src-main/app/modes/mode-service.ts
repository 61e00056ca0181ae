// The folder's approval mode (SPEC §7), saved per folder in `<data-dir>/folder-modes.json`,
// with whether the person chose it yet and whether the "no sandbox here" notice was shown.
// `auto` needs a sandbox: it cannot be chosen without one, and a saved `auto` acts as `ask`
// where the sandbox is gone.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MODE, isApprovalMode, type ApprovalMode } from '../../core/agent/permissions/modes';
import type { SandboxAvailability } from '../../core/sandbox/types';
import { ContractError, type ModeState } from '../contract';
import { readJsonFile, writeJsonFileAtomic } from '../settings/atomic-json';

interface FolderRecord {
  mode?: ApprovalMode;
  sandboxNoticeShown?: boolean;
}

export class ModeService {
  private readonly path: string;
  private readonly key: string;
  private readonly listeners = new Set<(state: ModeState) => void>();

  constructor(
    dataDir: string,
    folder: string,
    private readonly sandbox: SandboxAvailability,
  ) {
    this.path = join(dataDir, 'folder-modes.json');
    this.key = realFolder(folder);
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

  onChange(listener: (state: ModeState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private update(patch: FolderRecord): ModeState {
    // Read again right before writing: another window or process may have saved meanwhile.
    const all = this.all();
    all[this.key] = { ...all[this.key], ...patch };
    writeJsonFileAtomic(this.path, all);
    const state = this.get();
    for (const listener of this.listeners) listener(state);
    return state;
  }

  private record(): FolderRecord {
    const record = this.all()[this.key];
    return typeof record === 'object' && record !== null ? record : {};
  }

  private all(): Record<string, FolderRecord> {
    const data = readJsonFile(this.path);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
    return Object.assign(Object.create(null) as Record<string, FolderRecord>, data);
  }
}

function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
