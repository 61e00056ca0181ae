// The programs the tests drive that npm does not install: a Chromium for the end-to-end suite
// and bubblewrap (`bwrap`) for the sandbox tests. The test set-up (global-setup-*.ts) finds them
// or obtains them by the route that fits the machine; tests locate them with chromiumPath() /
// bwrapPath(), which throw the same one-line instruction when a tool is missing, so the suites
// that need it fail instead of skipping.
//
// Routes, in order: an explicit path (DEEPDESK_CHROMIUM / DEEPDESK_BWRAP); a system install;
// for Chromium, one Playwright already downloaded; then, on Linux as root with apt-get, the
// distribution package (Debian's `chromium` brings the libraries a browser needs, which a bare
// Playwright download on a fresh container lacks); otherwise Playwright's download of
// Chromium. When nothing works, one line says exactly what to install.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium as playwrightChromium } from 'playwright-core';

/** What the decisions look at and the commands they run; injected in tests. */
export interface Machine {
  platform: NodeJS.Platform;
  isRoot: boolean;
  env: NodeJS.ProcessEnv;
  /** Whether `file` is an executable file. */
  isExecutable(file: string): boolean;
  /** The names in a folder ([] when it cannot be read). */
  listDir?(dir: string): string[];
  /** The first `name` on PATH, or null. */
  onPath(name: string): string | null;
  /** Runs a command with stdin closed; output is captured, never shown. */
  run(command: string, args: string[], options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): { ok: boolean; output: string };
  /** Where Playwright keeps (or would download) its Chromium. */
  playwrightChromium(): string;
  log(line: string): void;
}

export type Acquired = { ok: true; path: string; how: string } | { ok: false; line: string };

export const CHROMIUM_ENV = 'DEEPDESK_CHROMIUM';
export const BWRAP_ENV = 'DEEPDESK_BWRAP';
/** The OpenSSH server the remote-folder tests start on 127.0.0.1 (core/backends/remote/testing/sshd.ts reads it). */
export const SSHD_ENV = 'DEEPDESK_TEST_SSHD';
/** A folder holding PostgreSQL's server programs (initdb, pg_ctl, postgres), for the shared-memories tests. */
export const POSTGRES_BIN_ENV = 'DEEPDESK_POSTGRES_BIN';

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const CHROMIUM_PATHS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'],
  darwin: [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
  ],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe'],
};

interface ToolSpec {
  /** As the messages name it. */
  label: string;
  /** Which tests need it. */
  neededBy: string;
  envVar: string;
  /** The file to check for the variable's value (default: the value itself). */
  explicitFile?(value: string): string;
  aptPackage: string;
  /** Where to look, best first (absolute paths); PATH lookups come from `names`. */
  paths(machine: Machine): string[];
  names: string[];
  /** Null when `file` runs here, else why not (one line). */
  check(machine: Machine, file: string): string | null;
  /** The usual download, when the tool has one. */
  download?(machine: Machine): boolean;
  /** What to install, for the closing instruction. */
  hint(machine: Machine): string;
}

const chromium: ToolSpec = {
  label: 'Chromium',
  neededBy: 'the end-to-end tests',
  envVar: CHROMIUM_ENV,
  aptPackage: 'chromium',
  names: CHROMIUM_NAMES,
  paths: (machine) => [...(CHROMIUM_PATHS[machine.platform] ?? []), machine.playwrightChromium()],
  // Windows browsers print no version on the console; being there is all we can check.
  check: (machine, file) => (machine.platform === 'win32' ? null : runs(machine, file, ['--version'])),
  download(machine) {
    machine.log(`test set-up: downloading Playwright's Chromium (no usable Chromium on this machine)…`);
    // cli.js is not among the package's exports; it sits beside its main file.
    const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('playwright-core')), 'cli.js');
    const result = machine.run(process.execPath, [cli, 'install', 'chromium'], { timeoutMs: 15 * 60_000 });
    if (!result.ok) machine.log(`test set-up: Playwright's download failed: ${lastLine(result.output)}`);
    return result.ok;
  },
  hint: (machine) =>
    machine.platform === 'linux'
      ? `install Chromium (Debian/Ubuntu: \`sudo apt-get install chromium\`; or \`npx playwright-core install --with-deps chromium\`) or set ${CHROMIUM_ENV} to a Chrome or Chromium executable`
      : `install Google Chrome (or run \`npx playwright-core install chromium\`) or set ${CHROMIUM_ENV} to a Chrome or Chromium executable`,
};

const bwrap: ToolSpec = {
  label: 'bubblewrap (bwrap)',
  neededBy: 'the sandbox tests',
  envVar: BWRAP_ENV,
  aptPackage: 'bubblewrap',
  names: ['bwrap'],
  paths: () => ['/usr/bin/bwrap'],
  check: (machine, file) => runs(machine, file, ['--ro-bind', '/', '/', '--', 'true']),
  hint: () => `install bubblewrap (Debian/Ubuntu: \`sudo apt-get install bubblewrap\`; Fedora: \`sudo dnf install bubblewrap\`) or set ${BWRAP_ENV} to its path`,
};

/** socat, which Claude Code's sandbox runtime (the peer the sandbox bench times) relays its proxies through on Linux. */
const socat: ToolSpec = {
  label: 'socat',
  neededBy: "the sandbox bench's peer (@anthropic-ai/sandbox-runtime)",
  envVar: 'DEEPDESK_SOCAT',
  aptPackage: 'socat',
  names: ['socat'],
  paths: () => ['/usr/bin/socat'],
  check: (machine, file) => runs(machine, file, ['-V']),
  hint: () => 'install socat (Debian/Ubuntu: `sudo apt-get install socat`; Fedora: `sudo dnf install socat`) or set DEEPDESK_SOCAT to its path',
};

/** A probe's limit: generous, since it runs while other suites load the machine (a loaded CI took over 20 s for `chromium --version`). */
const PROBE_TIMEOUT_MS = 90_000;

const sshd: ToolSpec = {
  label: 'an OpenSSH server (sshd)',
  neededBy: 'the remote-folder (SSH) tests',
  envVar: SSHD_ENV,
  aptPackage: 'openssh-server',
  names: ['sshd'],
  paths: () => ['/usr/sbin/sshd', '/usr/local/sbin/sshd'],
  // `sshd -V` prints its version and exits (status 0 on current OpenSSH, 1 on older ones).
  check: (machine, file) => (/OpenSSH/.test(machine.run(file, ['-V'], { timeoutMs: PROBE_TIMEOUT_MS }).output) ? null : `${file} is not an OpenSSH server`),
  hint: () => `install the OpenSSH server (Debian/Ubuntu: \`sudo apt-get install openssh-server\`) or set ${SSHD_ENV} to an sshd`,
};

/** Debian's server programs live in /usr/lib/postgresql/<major>/bin (not on PATH); newest first. */
function postgresBinDirs(machine: Machine): string[] {
  const dirs: string[] = [];
  for (const root of ['/usr/lib/postgresql', '/opt/homebrew/opt', '/usr/local/opt']) {
    for (const name of machine.listDir?.(root) ?? []) {
      if (root === '/usr/lib/postgresql' ? /^\d+(\.\d+)?$/.test(name) : /^postgresql(@\d+)?$/.test(name)) dirs.push(path.join(root, name, 'bin'));
    }
  }
  const major = (dir: string) => Number(/(\d+)(?:\.\d+)?\/bin$/.exec(dir)?.[1] ?? 0);
  return dirs.sort((a, b) => major(b) - major(a));
}

const postgres: ToolSpec = {
  label: 'PostgreSQL (initdb, pg_ctl, postgres)',
  neededBy: 'the shared-memories (PostgreSQL) tests',
  envVar: POSTGRES_BIN_ENV,
  explicitFile: (dir) => path.join(dir, 'initdb'),
  aptPackage: 'postgresql',
  names: ['initdb'],
  paths: (machine) => postgresBinDirs(machine).map((dir) => path.join(dir, 'initdb')),
  check(machine, file) {
    const dir = path.dirname(file);
    for (const program of ['pg_ctl', 'postgres']) if (!machine.isExecutable(path.join(dir, program))) return `${dir} has no ${program}`;
    return /PostgreSQL/.test(machine.run(file, ['--version'], { timeoutMs: PROBE_TIMEOUT_MS }).output) ? null : `${file} is not PostgreSQL's initdb`;
  },
  hint: () => `install PostgreSQL's server (Debian/Ubuntu: \`sudo apt-get install postgresql\`; macOS: \`brew install postgresql\`) or set ${POSTGRES_BIN_ENV} to the folder holding its initdb, pg_ctl and postgres`,
};

function runs(machine: Machine, file: string, args: string[]): string | null {
  const result = machine.run(file, args, { timeoutMs: PROBE_TIMEOUT_MS });
  return result.ok ? null : `${file} does not run here (${lastLine(result.output) || 'no output'})`;
}

function lastLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? '';
}

/** The tool on this machine without installing anything: the explicit path, else the first candidate that runs. */
function find(spec: ToolSpec, machine: Machine): { path: string } | { problem: string | null } {
  const value = machine.env[spec.envVar];
  if (value !== undefined && value !== '') {
    const explicit = spec.explicitFile ? spec.explicitFile(value) : value;
    if (!machine.isExecutable(explicit)) return { problem: `${spec.envVar}=${explicit} is not an executable file` };
    const problem = spec.check(machine, explicit);
    return problem === null ? { path: explicit } : { problem: `${spec.envVar}: ${problem}` };
  }
  const candidates = [...spec.names.map((name) => machine.onPath(name)), ...spec.paths(machine)].filter((c): c is string => c !== null);
  let problem: string | null = null;
  for (const candidate of new Set(candidates)) {
    if (!machine.isExecutable(candidate)) continue;
    const why = spec.check(machine, candidate);
    if (why === null) return { path: candidate };
    problem ??= why;
  }
  return { problem };
}

function missingLine(spec: ToolSpec, machine: Machine, problem: string | null): string {
  const found = problem === null ? `no ${spec.label} found` : problem;
  return `${spec.neededBy} need ${spec.label}: ${found}; ${spec.hint(machine)}`;
}

function aptInstall(machine: Machine, spec: ToolSpec): boolean {
  machine.log(`test set-up: installing ${spec.aptPackage} with apt-get for ${spec.neededBy} (not on this machine; this takes a while once)…`);
  const env = { ...machine.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => machine.run('apt-get', ['install', '-y', '-q', '--no-install-recommends', spec.aptPackage], { env, timeoutMs: 20 * 60_000 });
  let result = install();
  if (!result.ok) {
    // A fresh image has no package lists: fetch them, then try again.
    const update = machine.run('apt-get', ['update', '-q'], { env, timeoutMs: 10 * 60_000 });
    result = update.ok ? install() : update;
  }
  if (!result.ok) machine.log(`test set-up: apt-get could not install ${spec.aptPackage}: ${lastLine(result.output)}`);
  return result.ok;
}

/** Finds the tool or obtains it by the route that fits the machine; never throws. */
function acquire(spec: ToolSpec, machine: Machine): Acquired {
  const found = find(spec, machine);
  if ('path' in found) return { ok: true, path: found.path, how: 'found' };
  // An explicit path that does not work is the user's choice: report it, install nothing.
  if (machine.env[spec.envVar]) return { ok: false, line: missingLine(spec, machine, found.problem) };

  const routes: Array<{ how: string; attempt: () => boolean }> = [];
  if (machine.platform === 'linux' && machine.isRoot && machine.onPath('apt-get') !== null) {
    routes.push({ how: 'installed with apt-get', attempt: () => aptInstall(machine, spec) });
  }
  if (spec.download) routes.push({ how: 'downloaded', attempt: () => spec.download!(machine) });

  let problem = found.problem;
  for (const route of routes) {
    if (!route.attempt()) continue;
    const after = find(spec, machine);
    if ('path' in after) return { ok: true, path: after.path, how: route.how };
    problem = after.problem ?? problem;
  }
  return { ok: false, line: missingLine(spec, machine, problem) };
}

/** An sshd for the remote-folder tests (POSIX only: the remote side of §13 is a POSIX machine). */
export function acquireSshd(machine: Machine): Acquired | null {
  return machine.platform === 'win32' ? null : acquire(sshd, machine);
}

export function acquireChromium(machine: Machine): Acquired {
  return acquire(chromium, machine);
}

/** bubblewrap exists only on Linux; elsewhere there is nothing to acquire. */
export function acquireBwrap(machine: Machine): Acquired | null {
  return machine.platform === 'linux' ? acquire(bwrap, machine) : null;
}

/** socat exists for the peer only on Linux (macOS's runtime needs none). */
export function acquireSocat(machine: Machine): Acquired | null {
  return machine.platform === 'linux' ? acquire(socat, machine) : null;
}

/** The folder of PostgreSQL's server programs for the shared-memories tests (POSIX only). */
export function acquirePostgres(machine: Machine): Acquired | null {
  if (machine.platform === 'win32') return null;
  const acquired = acquire(postgres, machine);
  return acquired.ok ? { ...acquired, path: path.dirname(acquired.path) } : acquired;
}

/** For tests and the bench: the folder holding initdb, pg_ctl and postgres; throws the install instruction. */
export function postgresBinDir(machine: Machine = realMachine()): string {
  const found = find(postgres, machine);
  if ('path' in found) return path.dirname(found.path);
  throw new Error(missingLine(postgres, machine, found.problem));
}

/** This machine, as the decisions see it. */
export function realMachine(): Machine {
  return {
    platform: process.platform,
    isRoot: process.getuid?.() === 0,
    env: process.env,
    isExecutable(file) {
      try {
        if (!fs.statSync(file).isFile()) return false;
        fs.accessSync(file, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    listDir(dir) {
      try {
        return fs.readdirSync(dir);
      } catch {
        return [];
      }
    },
    onPath(name) {
      const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
      for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
        if (dir === '') continue;
        for (const ext of exts) {
          const candidate = path.join(dir, name + ext);
          if (this.isExecutable(candidate)) return candidate;
        }
      }
      return null;
    },
    run(command, args, options = {}) {
      const result = spawnSync(command, args, {
        env: options.env ?? process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        timeout: options.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}`;
      return { ok: result.status === 0, output };
    },
    playwrightChromium() {
      return playwrightChromium.executablePath();
    },
    log(line) {
      process.stderr.write(`${line}\n`);
    },
  };
}

/**
 * For tests: the Chromium to launch. The global set-up exports what it found in
 * DEEPDESK_CHROMIUM; a test run without it looks again. Throws the install instruction.
 */
export function chromiumPath(machine: Machine = realMachine()): string {
  const found = find(chromium, machine);
  if ('path' in found) return found.path;
  throw new Error(missingLine(chromium, machine, found.problem));
}

/** For tests: the bwrap to run, as chromiumPath(); throws the install instruction (also off Linux). */
export function bwrapPath(machine: Machine = realMachine()): string {
  if (machine.platform !== 'linux') throw new Error(`${bwrap.neededBy} need Linux: bubblewrap exists only there`);
  const found = find(bwrap, machine);
  if ('path' in found) return found.path;
  throw new Error(missingLine(bwrap, machine, found.problem));
}
