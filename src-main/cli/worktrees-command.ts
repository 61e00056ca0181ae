// `deepdesk worktrees ls | apply THREAD | rm THREAD [--force]` (SPEC §16): the git worktrees
// threads work in, their changes applied to the person's folder, and removing them; and the
// worktree `deepdesk run --worktree` makes before its run. THREAD is a thread's id (the
// worktree its folder lies in) or a worktree's name. All of it runs here, in the CLI process,
// through app/worktrees' WorktreeService on the data folder's database. A conflict on apply is
// printed with its lines from both sides, as git's conflict view shows them, and the ways on.

import { askLine } from './terminal-output';
import type Database from 'better-sqlite3';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { ThreadStore, type ThreadSummary } from '../app/threads/thread-store';
import { ambiguous, matchThread } from '../app/threads/thread-ref';
import { changeCountsText, WorktreeError, WorktreeService, type ChangeKind, type ConflictedFile, type CreatedWorktree, type WorktreeListing, type WorktreeRecord } from '../app/worktrees/worktree-service';
import { shellWord } from '../core/text/shell-quote';
import { openDatabase } from '../core/backends/store/store-db';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { processTerminalIo, type TerminalIo } from './run-client';
import { table } from './table';
import { parseCommand, UsageError } from './usage';

/** Repository-controlled text (paths, branch names) on one line, shown and never obeyed by the terminal. */
const safe = (text: string): string => terminalSafe(text, { singleLine: true });

export async function worktreesCommand(argv: string[], io: TerminalIo = processTerminalIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.worktrees);
  const [sub, ...args] = positionals;
  if (sub === undefined || !(SUBCOMMANDS.worktrees as readonly string[]).includes(sub)) {
    throw new UsageError(`worktrees needs ${SUBCOMMANDS.worktrees.join(', ')}${sub !== undefined ? ` (got '${sub}')` : ''}: worktrees ls | apply THREAD | rm THREAD [--force]`);
  }
  if (sub === 'ls' && args.length > 0) throw new UsageError(`worktrees ls takes no arguments (got '${args[0]}')`);
  if (sub !== 'ls' && args.length !== 1) throw new UsageError(`worktrees ${sub} needs one THREAD (a thread id or a worktree name)`);
  if (values.force === true && sub !== 'rm') throw new UsageError('--force goes with worktrees rm');
  if (values.json === true && sub !== 'ls') throw new UsageError('--json goes with worktrees ls');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const db = openDatabase(databasePath(dataDir));
  const service = new WorktreeService({ dataDir, db, env: io.env });
  try {
    if (sub === 'ls') return await list(io, service, db, values.json === true);
    const record = resolveWorktree(service, new ThreadStore(db), args[0]!);
    if (sub === 'apply') return await apply(io, service, record);
    return await remove(io, service, record, values.force === true);
  } catch (err) {
    if (err instanceof WorktreeError || err instanceof NotFound) {
      io.stderr.write(`deepdesk worktrees: ${safe(err.message)}\n`);
      return 1;
    }
    throw err;
  } finally {
    db.close();
  }
}

class NotFound extends Error {}

/** THREAD as a thread's id (the worktree its folder lies in), else a worktree's name, else a beginning of a thread's id that names it alone (thread-ref.ts). */
function resolveWorktree(service: WorktreeService, threads: ThreadStore, arg: string): WorktreeRecord {
  const named = threads.exists(arg) ? undefined : service.get(arg);
  if (named !== undefined) return named;
  const match = matchThread(threads, arg);
  if (match.kind === 'many') throw new UsageError(ambiguous(arg, match.ids).message);
  const thread = match.kind === 'one' ? threads.get(match.id) : undefined;
  if (thread === undefined) throw new NotFound(`no thread or worktree '${arg}' (deepdesk worktrees ls lists the worktrees)`);
  const record = service.byFolder(thread.folder);
  if (record === undefined) throw new NotFound(`thread ${thread.id} does not work in a worktree (its folder is ${thread.folder})`);
  return record;
}

interface ListedWorktree extends WorktreeListing {
  threads: string[];
  /** Its changes against its base (working state included); null when its folder is gone or git failed. */
  changes: Record<ChangeKind, number> | null;
  ahead: number | null;
  uncommittedFiles: number | null;
  applied: boolean;
  problem?: string;
}

async function list(io: TerminalIo, service: WorktreeService, db: Database.Database, json: boolean): Promise<number> {
  const worktrees = service.list();
  const threads = new ThreadStore(db).list();
  const listed: ListedWorktree[] = [];
  for (const worktree of worktrees) listed.push(await describe(service, worktree, threads));
  if (json) {
    io.stdout.write(terminalSafeJson(listed) + '\n');
    return 0;
  }
  if (listed.length === 0) {
    io.stdout.write('No worktrees yet: deepdesk run --worktree "…" makes one.\n');
    return 0;
  }
  const rows = listed.map((w) => [w.name, w.branch, w.threads.length > 0 ? w.threads.join(',') : '—', changesText(w), w.originFolder]);
  io.stdout.write(table([['NAME', 'BRANCH', 'THREAD', 'CHANGES', 'FOLDER'], ...rows]));
  return 0;
}

function changesText(w: ListedWorktree): string {
  if (!w.exists) return 'folder gone';
  if (w.changes === null) return 'unknown';
  const text = changeCountsText(w.changes);
  return w.applied && text !== 'clean' ? `${text} (applied)` : text;
}

async function describe(service: WorktreeService, worktree: WorktreeListing, threads: ThreadSummary[]): Promise<ListedWorktree> {
  const inside = threads.filter((t) => t.folder === worktree.path || t.folder.startsWith(worktree.path + '/')).map((t) => t.id);
  const base = { ...worktree, threads: inside, changes: null, ahead: null, uncommittedFiles: null, applied: false };
  if (!worktree.exists) return base;
  try {
    const status = await service.status(worktree.name);
    return { ...base, changes: status.counts, ahead: status.ahead, uncommittedFiles: status.uncommittedFiles, applied: status.applied };
  } catch (err) {
    return { ...base, problem: err instanceof Error ? err.message : String(err) };
  }
}

async function apply(io: TerminalIo, service: WorktreeService, record: WorktreeRecord): Promise<number> {
  const result = await service.apply(record.name);
  const folder = safe(record.repoRoot);
  if (result.conflicts.length > 0) {
    const n = result.conflicts.length;
    io.stdout.write(`Not applied: ${n} file${n === 1 ? '' : 's'} of worktree ${record.name} conflict with ${folder} (nothing was changed):\n`);
    const details = new Map((result.details ?? []).map((d) => [d.path, d]));
    for (const path of result.conflicts) {
      io.stdout.write(`  ${safe(path)}\n`);
      const detail = details.get(path);
      if (detail !== undefined) io.stdout.write(conflictView(detail, record.name));
    }
    io.stdout.write(waysOn(record));
    return 1;
  }
  if (result.applied.length === 0) {
    io.stdout.write(`Nothing to apply: ${folder} has the changes of worktree ${record.name} already.\n`);
    return 0;
  }
  const n = result.applied.length;
  io.stdout.write(`Applied ${n} file${n === 1 ? '' : 's'} of worktree ${record.name} to ${folder} (uncommitted):\n`);
  for (const path of result.applied) io.stdout.write(`  ${safe(path)}\n`);
  if (result.savedRef !== undefined) io.stdout.write(`Your folder as it was before is kept in ${safe(result.savedRef)}.\n`);
  return 0;
}

async function remove(io: TerminalIo, service: WorktreeService, record: WorktreeRecord, force: boolean): Promise<number> {
  const result = await service.remove(record.name, { force });
  if (!result.removed) {
    io.stderr.write(
      `deepdesk worktrees: worktree ${record.name} was not removed: ${safe(result.lost ?? 'work would be lost')} ` +
        `(deepdesk worktrees apply ${record.name} brings its changes to your folder; --force removes it anyway)\n`,
    );
    return 1;
  }
  const branch = safe(record.branch);
  io.stdout.write(`Removed worktree ${record.name}${result.branchDeleted ? ` and its branch ${branch}` : `; its branch ${branch} is kept (it has commits your branch does not)`}.\n`);
  const kept = result.keptThreads ?? [];
  if (kept.length > 0) {
    io.stdout.write(`Its thread${kept.length === 1 ? ' is' : 's are'} kept, now in ${safe(record.originFolder)}: ${kept.join(', ')} (deepdesk run --folder ${safe(shellWord(record.originFolder))} --thread ID continues one).\n`);
  }
  return 0;
}

/** A conflicting file's hunks as git's conflict view shows them, the sides named, indented under its path. */
function conflictView(file: ConflictedFile, name: string): string {
  const out: string[] = [];
  for (const note of file.notes) out.push(`    ${safe(note)}`);
  for (const hunk of file.hunks) {
    out.push(`    @@ line ${hunk.line} @@`);
    const lines = [
      ...hunk.before.map((l) => ` ${l}`),
      '<<<<<<< your folder',
      ...hunk.folder,
      ...(hunk.base !== undefined ? ['||||||| base', ...hunk.base] : []),
      '=======',
      ...hunk.worktree,
      `>>>>>>> worktree ${name}`,
      ...hunk.after.map((l) => ` ${l}`),
    ];
    // Tabs kept (code is indented with them); every other control shown, never obeyed.
    for (const line of lines) out.push(`    ${terminalSafe(line)}`);
  }
  if (file.truncated) out.push('    … (more not shown)');
  return out.map((l) => `${l}\n`).join('');
}

/** What the person can do about a conflict from here. */
function waysOn(record: WorktreeRecord): string {
  const wt = safe(shellWord(record.path));
  return [
    'Ways on:',
    `  - merge by hand: commit the worktree's work on its branch, then merge the branch into your folder (your own changes committed or stashed first):`,
    `      git -C ${wt} add -A && git -C ${wt} commit -m "Work from worktree ${record.name}"`,
    `      git -C ${safe(shellWord(record.repoRoot))} merge ${safe(record.branch)}`,
    `  - or open the worktree's thread in the window and choose "Ask the agent to resolve": it brings your folder's state into the worktree for the agent to merge.`,
    '',
  ].join('\n');
}

/**
 * The worktree `deepdesk run --worktree [NAME]` runs in, made before the run starts. The
 * folder's uncommitted changes are carried over with `carry`; without it, when there are
 * some, the person is asked (`mayAsk`: a terminal, not --detach) or told they stayed behind.
 */
export async function worktreeForRun(options: { dataDir: string; folder: string; name?: string; carry: boolean; nameHint: string; mayAsk: boolean; io: TerminalIo }): Promise<CreatedWorktree> {
  const { io } = options;
  const service = new WorktreeService({ dataDir: options.dataDir, env: io.env });
  try {
    let carry = options.carry;
    if (!carry) {
      const changed = await service.uncommittedChanges(options.folder);
      const [files, them, were] = changed === 1 ? ['1 uncommitted change', 'it', 'was'] : [`${changed} uncommitted changes`, 'them', 'were'];
      if (changed > 0 && options.mayAsk) {
        carry = await askYesNo(io, `Your folder has ${files}. Carry ${them} into the worktree? [y/N] `);
      } else if (changed > 0) {
        io.stderr.write(`deepdesk: the folder's ${files} ${were} not carried into the worktree (--carry-changes carries ${them})\n`);
      }
    }
    const made = await service.create({ folder: options.folder, carry, nameHint: options.nameHint, ...(options.name !== undefined ? { name: options.name } : {}) });
    const carried = made.carried > 0 ? `, ${made.carried} changed file${made.carried === 1 ? '' : 's'} carried over` : '';
    io.stderr.write(`deepdesk: worktree ${made.name} at ${safe(made.path)} (branch ${safe(made.branch)}${carried})\n`);
    return made;
  } catch (err) {
    if (err instanceof WorktreeError) throw new Error(safe(err.message), { cause: err });
    throw err;
  } finally {
    service.close();
  }
}

async function askYesNo(io: TerminalIo, question: string): Promise<boolean> {
  return /^(y|yes)$/i.test((await askLine(io.stdin, io.stderr, question)).trim());
}
