// What changed in a folder, told by a watcher, so that recording a step whose writes cannot
// be observed (a command outside the sandbox's write layer) looks only at those paths
// instead of walking the whole folder. The app feeds it from its folder watcher
// (app/workspace/folder-change-feed.ts); without one (the command line) the recorder walks.

export interface ChangeFeed {
  /**
   * The folder-relative paths ('/'-separated) changed since the last `take` or `reset`,
   * once every change made before this call has been reported; 'unknown' when the feed
   * cannot say (the watcher overflowed, failed or was not listening all along). Paths
   * changed meanwhile may be told again by the next call: they are looked at twice.
   */
  take(): Promise<ReadonlySet<string> | 'unknown'>;
  /** Forgets what was reported so far: the folder is being walked whole. */
  reset(): void;
}
