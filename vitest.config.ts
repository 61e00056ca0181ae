import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import InterleavedSequencer from './scripts/test-sequencer';

// Two projects so that each global set-up runs only when its tests are selected: the
// end-to-end project obtains a Chromium (scripts/test-setup), which a unit-only run must not.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A state polled for comes in its own time on a loaded machine (CI runs two files at a
    // time beside real processes): expect.poll's 1 s default made a state that came a little
    // later a failure, in unit files as in end-to-end ones.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Three files at a time on 2 cores (vitest's default there is one): a unit file mostly waits
    // on real processes (sshd, git, the sandbox), an end-to-end one keeps about one core busy,
    // and the sequencer runs the two kinds side by side.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    sequence: { sequencer: InterleavedSequencer },
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src-main/**/*.test.ts', 'src-renderer/**/*.test.ts', 'scripts/**/*.test.ts'],
          globalSetup: ['./scripts/test-setup/global-setup-bwrap.ts', './scripts/test-setup/global-setup-sshd.ts', './scripts/test-setup/global-setup-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          globalSetup: ['./scripts/test-setup/global-setup-bwrap.ts', './scripts/test-setup/global-setup-chromium.ts', './scripts/test-setup/global-setup-postgres.ts'],
        },
      },
    ],
  },
});
