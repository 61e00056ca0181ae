// The folder's trust question for the window (SPEC §9): what its own configuration would
// load and is not trusted (MCP servers, hooks, skills: every loader of core/trust), `Trust
// folder` and `Not now`. `Trust folder` trusts the list that was shown, by its digest: a
// change in between trusts nothing and shows the new list. Whatever loads that
// configuration listens and loads again.

import { shownDigest, trustReport } from '../../core/trust/report';
import type { TrustStore } from '../../core/trust/store';
import type { TrustReport } from '../../core/trust/types';
import type { TrustStateDto } from '../contract';

export const CHANGED_SINCE_SHOWN = "The folder's configuration changed since it was shown, so nothing was trusted. This is what it would load now.";

export interface FolderTrustOptions {
  /** The folder's real path. */
  folder: string;
  env: NodeJS.ProcessEnv;
  store: TrustStore;
  /** Told the new state whenever it changed (the window's `trust.changed`). */
  onState(state: TrustStateDto): void;
  /** The plugins the folder's settings ask for and the person has not installed (offered in the question). */
  pluginRequests?(): TrustStateDto['plugins'];
}

export class FolderTrustService {
  private report: TrustReport;
  private plugins: TrustStateDto['plugins'] = [];
  private dismissedDigest: string | null = null;
  private readonly granted = new Set<() => Promise<void> | void>();
  private refreshing: Promise<void> = Promise.resolve();

  constructor(private readonly options: FolderTrustOptions) {
    this.report = { folder: options.folder, entries: [], untrusted: [], problems: [] };
  }

  /** Looks at the folder's configuration again (serialised); tells the window when the question changed. */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing
      .then(async () => {
        const before = JSON.stringify(this.state());
        this.report = await trustReport(this.options.folder, this.options.store, this.options.env);
        this.plugins = this.options.pluginRequests?.() ?? [];
        if (JSON.stringify(this.state()) !== before) this.options.onState(this.state());
      })
      .catch(() => undefined);
    return this.refreshing;
  }

  state(): TrustStateDto {
    const untrusted = this.report.untrusted.map((e) => {
      const before = this.options.store.trustedBefore(this.options.folder, e);
      return { kind: e.kind, key: e.key, label: e.label, file: e.file, digest: shownDigest({ untrusted: [e] }), ...(before !== undefined ? { changedFrom: before } : {}) };
    });
    const digest = shownDigest(this.report);
    const asking = untrusted.length > 0 || this.plugins.length > 0;
    return { folder: this.options.folder, untrusted, dismissed: asking && this.dismissedDigest === this.questionDigest(), digest, plugins: this.plugins };
  }

  /** What `Not now` put aside: the list and the plugins offered (a new one asks again). */
  private questionDigest(): string {
    return `${shownDigest(this.report)}:${this.plugins.map((p) => p.spec).join(',')}`;
  }

  /**
   * `Trust folder` on the list whose digest is `shown`: exactly those entries, with the content
   * they had when listed, are trusted. If the folder's configuration gives another list now,
   * nothing is trusted and the answer is the new list with a note. With `keys` (Settings'
   * `Trust` on one server), only those entries of the list, `shown` being their own digest.
   */
  async grant(shown: string, keys?: readonly string[]): Promise<TrustStateDto> {
    await this.refresh();
    const listed = keys === undefined ? this.report.untrusted : this.report.untrusted.filter((e) => keys.includes(e.key));
    if (listed.length === 0 || shownDigest({ untrusted: listed }) !== shown) {
      const state = { ...this.state(), note: CHANGED_SINCE_SHOWN };
      this.options.onState(state);
      return state;
    }
    // Digests of content as it was read for the list: a change since is simply not trusted.
    this.options.store.trust(this.options.folder, listed);
    await this.refresh();
    // What loads now is in place when the answer comes back (servers listed `Starting`); the
    // servers start in the background, their state told as it changes (issue 42).
    await Promise.all([...this.granted].map((listener) => listener()));
    const state = this.state();
    this.options.onState(state);
    return state;
  }

  dismiss(): TrustStateDto {
    this.dismissedDigest = this.questionDigest();
    const state = this.state();
    this.options.onState(state);
    return state;
  }

  /** Called after the person trusted the folder: its configuration loads now. */
  onGranted(listener: () => Promise<void> | void): () => void {
    this.granted.add(listener);
    return () => this.granted.delete(listener);
  }
}
