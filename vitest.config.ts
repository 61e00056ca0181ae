import { globSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import InterleavedSequencer from './scripts/test-sequencer';

const UNIT_FILES = ['src-main/**/*.test.ts', 'src-renderer/**/*.test.ts', 'scripts/**/*.test.ts'];
const UNIT_SET_UP = ['./scripts/test-setup/global-setup-bwrap.ts', './scripts/test-setup/global-setup-sshd.ts', './scripts/test-setup/global-setup-postgres.ts'];
/**
 * A unit file shares its worker's modules with the files run there before it (a fresh module
 * graph for each of 450 files cost some 100 CPU-s of a CPU-bound run), unless it changes what
 * modules hold or read at their start (a mock, the environment, the working folder) or checks
 * what a fresh process has loaded (`vitest-isolate` says so): those run each in a fresh one.
 */
const CHANGES_MODULES = /\bvi\.(mock|doMock|unmock|resetModules|stubGlobal|stubEnv)\(|process\.chdir\(|process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env|vitest-isolate/;
const ISOLATED_UNIT_FILES = globSync(UNIT_FILES).filter((file) => CHANGES_MODULES.test(readFileSync(file, 'utf8')));

// Two projects so that each global set-up runs only when its tests are selected: the
// end-to-end project obtains a Chromium (scripts/test-setup), which a unit-only run must not.
export default defineConfig({
  test: {
    // A hang's bound, not a speed check (that is `npm run bench`): a test of many steps, each with
    // its own bound, took 40-62 s on CI's loaded 2-core machine (e2e/remote-folder, candidates).
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // A state polled for comes in its own time on a loaded machine (CI runs three files at a
    // time beside real processes): a poll's bound, like a test's, is a hang's, 60 s here and in
    // the tests that give theirs (a run's few steps took over 15 s at load 10).
    expect: { poll: { timeout: 60_000 } },
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
        test: { name: 'unit', include: UNIT_FILES, exclude: [...configDefaults.exclude, ...ISOLATED_UNIT_FILES], isolate: false, globalSetup: UNIT_SET_UP },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: ISOLATED_UNIT_FILES, globalSetup: UNIT_SET_UP },
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
