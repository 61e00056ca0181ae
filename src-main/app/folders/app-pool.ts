// Folder apps, one per folder (a local path or an ssh:// URL), shared by every window showing
// that folder (in the agent host and in the desktop app): one owner of its runs, approvals, terminals and MCP servers.
// A window leases the folder's app; the app closes once no window holds it and none of its
// threads is working, so closing a window (or a browser tab, or `deepdesk serve`) leaves its
// runs going.

import type { App } from '../window/folder-app';

interface Entry {
  app: Promise<App>;
  /** What the app was built from besides its folder (a window's flags and environment). */
  configuration: string;
  /** The app once made. */
  ready?: App;
  leases: number;
}

/** How often apps that no window holds are looked at again (a run that ended lets its app close). */
const SWEEP_MS = 2_000;

export class AppPool {
  private readonly entries = new Map<string, Entry>();
  private readonly closing = new Map<string, Promise<void>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly log: (line: string) => void = () => {}) {
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /**
   * The folder's app, made by `make` when there is none; `close()` on what it returns gives the
   * lease back. An app no window holds and with nothing going is closed at once, so one built
   * from another `configuration` is shared only while a window holds it or its runs go
   * (`builtFrom` tells).
   */
  async lease(folder: string, make: () => Promise<App>, configuration = ''): Promise<App> {
    await this.closing.get(folder);
    let entry = this.entries.get(folder);
    if (entry === undefined) {
      entry = { app: make(), leases: 0, configuration };
      this.entries.set(folder, entry);
      const made = entry;
      made.app.then(
        (app) => (made.ready = app),
        () => {
          if (this.entries.get(folder) === made) this.entries.delete(folder);
        },
      );
    }
    entry.leases += 1;
    let app: App;
    try {
      app = await entry.app;
    } catch (err) {
      entry.leases -= 1;
      throw err;
    }
    let released = false;
    const held = entry;
    return {
      folder: app.folder,
      ...(app.sandbox ? { sandbox: app.sandbox } : {}),
      busy: () => app.busy(),
      changedElsewhere: (threadId) => app.changedElsewhere(threadId),
      describeApproval: (request) => app.describeApproval(request),
      handle: (method, params) => app.handle(method, params),
      onEvent: (listener) => app.onEvent(listener),
      close: async () => {
        if (released) return;
        released = true;
        held.leases -= 1;
        await this.sweep();
      },
    };
  }

  /** The configuration the folder's app was built from (undefined: there is none). */
  builtFrom(folder: string): string | undefined {
    return this.entries.get(folder)?.configuration;
  }

  /** Whether an app has a thread working. */
  busy(): boolean {
    return [...this.settled()].some(({ app }) => app.busy());
  }

  /** The apps made so far. */
  apps(): App[] {
    return [...this.settled()].map(({ app }) => app);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.entries.entries()];
    this.entries.clear();
    await Promise.all(all.map(([folder, entry]) => entry.app.then((app) => app.close()).catch((err: unknown) => this.log(`closing ${folder} failed: ${String(err)}`))));
  }

  /** Closes the apps no window holds whose threads are idle. */
  private async sweep(): Promise<void> {
    const idle = [...this.settled()].filter(({ entry, app }) => entry.leases === 0 && !app.busy());
    await Promise.all(
      idle.map(async ({ folder, entry, app }) => {
        if (this.entries.get(folder) !== entry) return;
        this.entries.delete(folder);
        const closing = app.close().catch((err: unknown) => this.log(`closing ${folder} failed: ${String(err)}`));
        this.closing.set(folder, closing);
        await closing;
        this.closing.delete(folder);
      }),
    );
  }

  private *settled(): Generator<{ folder: string; entry: Entry; app: App }> {
    for (const [folder, entry] of this.entries) if (entry.ready !== undefined) yield { folder, entry, app: entry.ready };
  }
}
