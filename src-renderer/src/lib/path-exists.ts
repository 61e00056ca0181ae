// Which folder paths are files, for the window's links: a path the agent or a Markdown text
// names is a link only when the file is there. Answers are asked for in batches, kept, and
// kept true by the folder's live changes (a file created later becomes a link, a deleted one
// stops being one). Pure: the asking and the timer are given.

export interface FileChangeLike {
  path: string;
  kind: 'add' | 'change' | 'unlink' | 'addDir' | 'unlinkDir';
}

/** At most this many paths per question (the contract's limit). */
export const BATCH = 200;

export class PathExistence {
  private readonly known = new Map<string, boolean>();
  private readonly queued = new Set<string>();
  private readonly asking = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private scheduled = false;

  constructor(
    /** Which of `paths` are files in the folder (same order). */
    private readonly ask: (paths: string[]) => Promise<boolean[]>,
    private readonly schedule: (run: () => void) => void = (run) => void setTimeout(run, 25),
  ) {}

  /** true / false when known; undefined while not (and it is then asked for). */
  get(path: string): boolean | undefined {
    const known = this.known.get(path);
    if (known === undefined) this.request(path);
    return known;
  }

  /** What is known, without asking. */
  peek(path: string): boolean | undefined {
    return this.known.get(path);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The folder changed on disk. */
  apply(changes: readonly FileChangeLike[]): void {
    let changed = false;
    for (const { path, kind } of changes) {
      if (kind === 'change') continue;
      if (kind === 'add') changed = this.set(path, true) || changed;
      else if (kind === 'addDir') changed = this.set(path, false) || changed;
      else {
        // The watcher cannot tell a deleted folder from a deleted file: what was below goes too.
        changed = this.set(path, false) || changed;
        const below = `${path.replace(/\/$/, '')}/`;
        for (const key of [...this.known.keys()]) {
          if (key.startsWith(below)) {
            this.known.delete(key);
            changed = true;
          }
        }
      }
    }
    if (changed) this.notify();
  }

  /** Forget everything (another folder, or events missed while disconnected). */
  clear(): void {
    if (this.known.size === 0) return;
    this.known.clear();
    this.notify();
  }

  private set(path: string, value: boolean): boolean {
    if (this.known.get(path) === value) return false;
    this.known.set(path, value);
    return true;
  }

  private request(path: string): void {
    if (this.queued.has(path) || this.asking.has(path)) return;
    this.queued.add(path);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const all = [...this.queued];
    this.queued.clear();
    for (let i = 0; i < all.length; i += BATCH) {
      const batch = all.slice(i, i + BATCH);
      for (const p of batch) this.asking.add(p);
      let answers: boolean[] | null;
      try {
        answers = await this.ask(batch);
      } catch {
        answers = null;
      }
      for (const [j, p] of batch.entries()) {
        this.asking.delete(p);
        // Without an answer (a server without the question), a path stays a link as it was before checks.
        if (!this.known.has(p)) this.known.set(p, answers === null ? true : answers[j] === true);
      }
      this.notify();
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
