// `deepdesk serve`: the window in a browser, on 127.0.0.1 with a per-run token (SPEC §5).

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isProcessAlive } from '../core/process/process-tree';
import { ContractError } from '../app/contract';
import { resolveDataDir } from '../app/base/data-dir';
import { startWebHost } from '../clients/web/server';
import { HostWindow } from '../clients/host-client/host-window';
import { giveBackMemorySoon } from '../app/window/give-back-memory';
import { connectToHost, definedEnv, hostRequest } from './host-connection';
import type { SandboxRequest } from '../app/sandboxes/sandbox-request';
import { buildId } from '../app/base/package-version';
import { terminalSafe } from '../core/text/terminal-safe';
import { folderLocation } from './folder-flag';
import { folderLocationText } from '../app/places/folder-location';
import { overSettingsFlags } from '../app/base/session-flags';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const SERVE_OPTIONS = COMMAND_OPTIONS.serve;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, SERVE_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got '${positionals.join(' ')}')`);
  if (values['print-url'] === true) return printServeUrls(resolveDataDir(values['data-dir']));
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got '${values.port}')`);
  const flags = sessionFlagsOf('serve', values);
  // Without --folder the window opens on `Open folder` (recent folders first) rather than on
  // whatever folder serve was started in (`npm start` runs it in the Deepdesk checkout).
  const given = values.folder === undefined ? null : folderLocationText(folderLocation(values.folder));
  const sandbox = flags.sandbox;
  if (sandbox !== undefined && given === null) throw new UsageError('--sandbox and --sandbox-id on serve need --folder: the window opens on the sandbox worktree of that folder');
  const dataDir = resolveDataDir(values['data-dir']);
  const overrides = overSettingsFlags(flags);
  // The window's app lives in the agent host (SPEC §16): closing a tab or stopping this
  // command leaves its runs going; this process only serves the window to the browser.
  const say = (line: string) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  const env = definedEnv(process.env);
  const folder = sandbox === undefined || given === null ? given : await sandboxWorktree(dataDir, { folder: given, cwd: process.cwd(), env, sandbox }, say);
  const app = await HostWindow.open({
    connect: { dataDir, client: 'serve', version: buildId(), env: process.env },
    window: {
      folder,
      overrides,
      mounts: flags.mounts ?? [],
      mcpConfig: flags.mcpConfig ?? [],
      cwd: process.cwd(),
      env,
    },
    // A settings, keys, modes or recent-folders file kept aside (or values in it ignored): one line each.
    onNotice: (notice) => say(notice.message),
    onHostGone: say,
  }).catch((err: unknown) => {
    // The --folder given is not there (or not a folder) on its remote: bad usage, as a local one is.
    if (err instanceof ContractError && err.code !== 'failed') throw new UsageError(err.message);
    throw err;
  });
  const host = await startWebHost({ api: app, staticDir: builtFolder('renderer'), port });
  process.stdout.write(`Deepdesk is running at ${host.url}\n`);
  // Its start's garbage (loading the window's server and the host's client) is given back now,
  // not when V8's memory reducer gets to it, seconds to minutes later (issue 66).
  giveBackMemorySoon();
  const forget = recordServeUrl(dataDir, host.url);
  try {
    await untilSignal();
  } finally {
    forget();
  }
  await host.close();
  await app.close();
  return 0;
}

/** The sandbox worktree of the folder (SPEC §18), made or found again by the agent host as `run --sandbox`'s is; told in one line. */
async function sandboxWorktree(dataDir: string, params: { folder: string; cwd: string; env: Record<string, string>; sandbox: SandboxRequest }, say: (line: string) => void): Promise<string> {
  const host = await connectToHost(dataDir, 'serve', process.env);
  try {
    const made = await hostRequest<{ folder: string; lines: string[] }>(host, 'sandboxes.workFolder', params);
    for (const line of made.lines) say(line);
    return made.folder;
  } finally {
    await host.close();
  }
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `out/<name>` of the build this code runs from (it may sit in out/main or out/main/chunks). */
function builtFolder(name: string): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, name, 'index.html'))) return join(dir, name);
  }
  throw new Error(`the window's files (out/${name}) are missing; run \`npm run build\``);
}

/**
 * Where a running serve keeps its address, key included, for `serve --print-url`: the data
 * folder's serve/ (0700, files 0600), so only the person it runs as reads it; one file a
 * serve process, removed when it stops (one left by a killed serve is skipped and removed).
 */
function serveUrlsDir(dataDir: string): string {
  return join(dataDir, 'serve');
}

function recordServeUrl(dataDir: string, url: string): () => void {
  const dir = serveUrlsDir(dataDir);
  const file = join(dir, `${process.pid}.url`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${url}\n`, { mode: 0o600 });
  } catch {
    // Not kept: --print-url will not find this one; the printed link still works.
  }
  return () => rmSync(file, { force: true });
}

/** `serve --print-url`: the address of every serve running on this data folder, one a line. */
function printServeUrls(dataDir: string): number {
  const dir = serveUrlsDir(dataDir);
  const urls: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // None ever ran.
  }
  for (const name of names) {
    const pid = /^(\d+)\.url$/.exec(name)?.[1];
    if (pid === undefined) continue;
    const file = join(dir, name);
    if (!isProcessAlive(Number(pid))) {
      rmSync(file, { force: true });
      continue;
    }
    const url = readFileSync(file, 'utf8').trim();
    if (/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+$/.test(url)) urls.push(url);
  }
  if (urls.length === 0) {
    process.stderr.write(`deepdesk: no \`deepdesk serve\` is running on ${dataDir}; start one with \`deepdesk serve\`\n`);
    return 1;
  }
  for (const url of urls) process.stdout.write(`${url}\n`);
  return 0;
}
