// Warm folder sessions (issue 66): the agent host keeps the session a run of a folder opened
// (the one composition, folder-session.ts) for the next run of the same folder with the same
// flags, instead of opening and closing it around every `deepdesk run`. A session is only
// kept when the next run would find it exactly as a fresh one: what the session reads live
// (skills, hooks, Claude Code rules, commands, agents, mounts, the mode, the model, the sandbox
// policy, the MCP servers, reloaded when a run starts) is read live either way, and what it
// fixed when it opened is checked when it is taken again:
// - the data folder's files the session opened with (settings, trust, modes, the switches of
//   extensions and MCP servers): any change and the session is closed and opened again;
// - the folder's real path, whether it is now a provider sandbox's, the project a worktree
//   folder belongs to;
// - the hooks' problems are read again (the rest of the folder's configuration is live);
// - a session that told the person anything while opening or idle (a file it could not read)
//   is never kept: the next run opens its own and tells it again, as it always did.
// Kept: one idle session per key, the most recent few, each closed after a while unused or
// after many runs (closing a session collects its checkpoints' garbage, as it did per run).

import type { FolderSession } from './folder-session';

/** What a kept session must still match when it is taken again (checked by the caller, cheap). */
export interface KeptSession {
  session: FolderSession;
  /** Whether a fresh open now would make the same session (files unchanged, same place). */
  stillFresh(): boolean;
  /** Makes it ready for another run (what it read once, read again). */
  refresh(): void;
  /** Where the session's notices go now (the current run's, or nowhere while idle). */
  route: NoticeRoute;
  /** Runs it served (counted by the pool). */
  uses?: number;
}

/** The session's lines for the person go to the run using it; one said while idle spoils it. */
export class NoticeRoute {
  private sink: ((line: string) => void) | undefined;
  /** It said something (opening, idle or during a run): a kept session must not hide it from the next run. */
  spoken = false;

  say(line: string): void {
    this.spoken = true;
    this.sink?.(line);
  }

  to(sink: ((line: string) => void) | undefined): void {
    this.sink = sink;
  }
}

interface Idle {
  kept: KeptSession;
  timer: NodeJS.Timeout;
}

export interface SessionPoolOptions {
  /** Idle sessions kept at most (the least recently used go first). */
  maxIdle?: number;
  /** An idle session is closed after this. */
  idleMs?: number;
  /** A session is closed after serving this many runs (closing collects the checkpoints' garbage). */
  maxUses?: number;
}

export class FolderSessionPool {
  private readonly idle = new Map<string, Idle>();
  private readonly closing = new Set<Promise<void>>();
  private closed = false;
  private readonly maxIdle: number;
  private readonly idleMs: number;
  private readonly maxUses: number;

  constructor(options: SessionPoolOptions = {}) {
    this.maxIdle = options.maxIdle ?? 4;
    this.idleMs = options.idleMs ?? 60_000;
    this.maxUses = options.maxUses ?? 100;
  }

  /** The idle session kept under `key` when it is still what a fresh open would make; else undefined (a stale one is closed). */
  take(key: string): KeptSession | undefined {
    const found = this.idle.get(key);
    if (found === undefined) return undefined;
    this.idle.delete(key);
    clearTimeout(found.timer);
    let fresh: boolean;
    try {
      fresh = !found.kept.route.spoken && found.kept.stillFresh();
      if (fresh) found.kept.refresh();
    } catch {
      fresh = false;
    }
    if (!fresh) {
      this.retire(found.kept);
      return undefined;
    }
    return found.kept;
  }

  /** A run is done with its session: kept for the next one of `key` when it may be, else closed. */
  give(key: string, kept: KeptSession): void {
    kept.route.to(undefined);
    kept.uses = (kept.uses ?? 0) + 1;
    if (this.closed || kept.route.spoken || this.idle.has(key) || kept.uses >= this.maxUses) {
      this.retire(kept);
      return;
    }
    const timer = setTimeout(() => {
      if (this.idle.get(key)?.kept === kept) {
        this.idle.delete(key);
        this.retire(kept);
      }
    }, this.idleMs);
    timer.unref();
    this.idle.set(key, { kept, timer });
    for (const [oldKey, old] of this.idle) {
      if (this.idle.size <= this.maxIdle) break;
      this.idle.delete(oldKey);
      clearTimeout(old.timer);
      this.retire(old.kept);
    }
  }

  /** How many sessions are kept idle now. */
  get size(): number {
    return this.idle.size;
  }

  /** Closes every idle session (the host is stopping); sessions given back later are closed too. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { kept, timer } of this.idle.values()) {
      clearTimeout(timer);
      this.retire(kept);
    }
    this.idle.clear();
    await Promise.all([...this.closing]);
  }

  private retire(kept: KeptSession): void {
    const closing: Promise<void> = kept.session
      .close()
      .catch(() => undefined)
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }
}
