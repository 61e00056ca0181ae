// `deepdesk sandboxes ls [--json] | stop ID | rm ID` (SPEC §18): the providers' sandboxes
// Deepdesk made, with their threads, age and state; stopping or removing one brings back what
// it changed to its worktree first. Runs here, in the CLI process, on the data folder's
// database, with the providers' keys from the environment or Settings › Sandboxes.

import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { holdDataFolderSecrets } from '../app/settings/data-folder-secrets';
import { SettingsService } from '../app/settings/settings-service';
import { listSandboxes, removeSandbox, SandboxAdminError, stopSandbox, type SandboxAdminOptions, type SandboxListing } from '../app/sandboxes/sandbox-admin';
import { openDatabase } from '../core/backends/store/store-db';
import { PROVIDER_LABELS, SandboxProviderError } from '../core/sandbox-providers/provider';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { processTerminalIo, type TerminalIo } from './run-client';
import { table } from './table';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';

const safe = (text: string): string => terminalSafe(text, { singleLine: true });

export async function sandboxesCommand(argv: string[], io: TerminalIo = processTerminalIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.sandboxes);
  const [sub, ...args] = positionals;
  if (sub === undefined || !(SUBCOMMANDS.sandboxes as readonly string[]).includes(sub)) {
    throw new UsageError(`sandboxes needs ${SUBCOMMANDS.sandboxes.join(', ')}${sub !== undefined ? ` (got '${sub}')` : ''}: sandboxes ls | stop ID | rm ID`);
  }
  if (sub === 'ls' && args.length > 0) throw new UsageError(`sandboxes ls takes no arguments (got '${args[0]}')`);
  if (sub !== 'ls' && args.length !== 1) throw new UsageError(`sandboxes ${sub} needs one ID (deepdesk sandboxes ls lists them)`);
  if (values.json === true && sub !== 'ls') throw new UsageError('--json goes with sandboxes ls');
  const provider = sessionFlagsOf('sandboxes', values).sandbox?.provider;
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const db = openDatabase(databasePath(dataDir));
  const secrets = holdDataFolderSecrets(dataDir);
  const settings = new SettingsService(dataDir, secrets.store, { readOnly: true });
  const options: SandboxAdminOptions = { db, dataDir, env: io.env, savedKeys: () => settings.sandboxKeys() };
  try {
    if (sub === 'ls') return await list(io, options, values.json === true);
    const id = args[0]!;
    if (sub === 'stop') {
      const stopped = await stopSandbox(options, id, provider);
      io.stdout.write(`Stopped ${safe(id)} (${PROVIDER_LABELS[stopped.provider]})${broughtBackText(stopped.broughtBack)}.\n`);
      return 0;
    }
    const removed = await removeSandbox(options, id, provider);
    io.stdout.write(
      removed.wasGone
        ? `${PROVIDER_LABELS[removed.provider]} had no sandbox ${safe(id)} any more; Deepdesk forgot it (its worktree and threads are kept, and its threads carry on on this computer).\n`
        : `Removed ${safe(id)} (${PROVIDER_LABELS[removed.provider]})${broughtBackText(removed.broughtBack)}; its worktree and threads are kept, and its threads carry on on this computer.\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof SandboxProviderError || err instanceof SandboxAdminError) {
      io.stderr.write(`deepdesk sandboxes: ${safe(err.message)}\n`);
      return 1;
    }
    throw err;
  } finally {
    settings.close();
    secrets.release();
    db.close();
  }
}

function broughtBackText(n: number): string {
  return n === 0 ? '' : `; ${n} changed file${n === 1 ? '' : 's'} came back to its worktree first`;
}

async function list(io: TerminalIo, options: SandboxAdminOptions, json: boolean): Promise<number> {
  const { sandboxes, problems } = await listSandboxes(options);
  const tellProblems = (): void => {
    for (const problem of problems) io.stderr.write(`deepdesk sandboxes: ${safe(problem)}\n`);
  };
  if (json) {
    io.stdout.write(terminalSafeJson(sandboxes) + '\n');
    tellProblems();
    return problems.length > 0 ? 1 : 0;
  }
  if (sandboxes.length === 0) {
    // "No sandboxes" only when every provider could be asked: an unreachable one may have some.
    if (problems.length === 0) io.stdout.write('No sandboxes: deepdesk run --sandbox PROVIDER "…" makes one.\n');
    tellProblems();
    return problems.length > 0 ? 1 : 0;
  }
  const now = Date.now();
  const rows = sandboxes.map((s) => [s.id, PROVIDER_LABELS[s.provider], s.state, ageText(s, now), s.threads.length > 0 ? s.threads.join(',') : '—', s.folder ?? '—']);
  io.stdout.write(table([['ID', 'PROVIDER', 'STATE', 'AGE', 'THREADS', 'FOLDER'], ...rows]));
  tellProblems();
  return problems.length > 0 ? 1 : 0;
}

function ageText(s: SandboxListing, now: number): string {
  if (s.createdAt === undefined) return '—';
  const seconds = Math.max(0, Math.round((now - Date.parse(s.createdAt)) / 1000));
  if (Number.isNaN(seconds)) return '—';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86400)}d`;
}
