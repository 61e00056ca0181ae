// `deepdesk memories …` (SPEC §25) over the memories of the project of `--folder DIR` (default:
// the current folder) and the global ones, in SQLite or the store `--memories-store` (else
// Settings) names: list, print, write and remove as the person; a memory's versions, and one
// brought back; proposals approved or rejected; another agent's memories imported.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { openDatabase } from '../core/backends/store/store';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { folderLocationText } from '../app/places/folder-location';
import { ContractError, MAX_MEMORY_PAGE, type MemoryEntry } from '../app/contract';
import { MemoriesService } from '../app/memories/memories-service';
import { MemoryBookError, type MemoryBook } from '../core/memories/memory-book';
import { GLOBAL_SCOPE, writerLabel, type MemoryVersion } from '../core/memories/memory-types';
import { importSourceDir, placeImports, planImport, type ImportTool } from '../core/memories/import-memories';
import { asMemoryWriter, type MemoryWriteContext } from '../core/memories/write-context';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { folderLocation } from './folder-flag';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';
import { writeContent } from './terminal-output';
import { openSessionMounts } from './mount-flags';

export interface MemoriesIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

type Action = (typeof SUBCOMMANDS.memories)[number];

const ACTIONS: readonly string[] = SUBCOMMANDS.memories;

const USAGE =
  'expected one of: memories ls [--proposed] | cat PATH [--version N] | write PATH | rm PATH | log PATH [--json] | restore PATH --version N | approve PATH [--version N] | reject PATH [--version N] | import claude-code|codex [--from DIR] [--dry-run]';

/** Each action's own flags: another's is refused rather than ignored. */
const OWN_FLAGS: Record<Action, readonly string[]> = {
  ls: ['proposed'],
  cat: ['version'],
  write: [],
  rm: [],
  log: ['json'],
  restore: ['version'],
  approve: ['version'],
  reject: ['version'],
  import: ['from', 'dry-run'],
};
const ACTION_FLAGS = [...new Set(Object.values(OWN_FLAGS).flat())];

const IMPORT_TOOLS: readonly ImportTool[] = ['claude-code', 'codex'];

const PERSON: MemoryWriteContext = { writer: { kind: 'person' }, sources: () => [], personText: () => '' };

export async function memoriesCommand(argv: string[], io: MemoriesIo = { input: process.stdin, output: process.stdout }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.memories);
  const [given, path, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (given === undefined || !ACTIONS.includes(given)) throw new UsageError(USAGE);
  const action = given as Action;
  if (action === 'ls' && path !== undefined) throw new UsageError('memories ls takes no PATH');
  if (action === 'import' && !IMPORT_TOOLS.includes(path as ImportTool)) throw new UsageError(`memories import takes claude-code or codex${path !== undefined ? ` (got '${path}')` : ''}`);
  if (action !== 'ls' && path === undefined) throw new UsageError(`memories ${action} needs a PATH`);
  for (const flag of ACTION_FLAGS) if (values[flag] !== undefined && !OWN_FLAGS[action].includes(flag)) throw new UsageError(`memories ${action} does not take --${flag}`);
  const version = versionFlag(values.version);
  if (action === 'restore' && version === undefined) throw new UsageError('memories restore needs --version N');

  const folder = folderLocationText(folderLocation(values.folder));
  const { memoriesStore } = sessionFlagsOf('memories', values);
  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(databasePath(dataDir));
  try {
    const session = await openSessionMounts({
      dataDir,
      env: process.env,
      db,
      folder,
      flags: [],
      memoriesStore,
      say: (line) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`),
    });
    try {
      const { book, projectKey } = session.memories;
      const memories = new MemoriesService(book, () => undefined);
      const say = (line: string) => void io.output.write(`${terminalSafe(line, { singleLine: true })}\n`);
      // Whatever this command changes the person does: the book's writes name their writer, its delete takes it from here.
      return await asMemoryWriter(PERSON, async () => {
        switch (action) {
          case 'ls':
            return await list(memories, values.proposed === true, say);
          case 'cat':
            // Memories are written by models: on a terminal, their control characters are shown, not obeyed.
            writeContent(io.output, version === undefined ? (await memories.read(path!)).text : versionText(book, path!, version));
            return 0;
          case 'write':
            await memories.write(path!, await readAll(io.input));
            return 0;
          case 'rm':
            await memories.delete(path!);
            return 0;
          case 'log':
            return await log(book, path!, values.json === true, io.output, say);
          case 'restore':
            await memories.restore(path!, version!);
            say(`Restored ${shown(book, path!)} to version ${version} (now version ${latest(book, path!)})`);
            return 0;
          case 'approve':
            await memories.approve(path!, version !== undefined ? { version } : {});
            say(`Approved ${shown(book, path!)} (now version ${latest(book, path!)})`);
            return 0;
          case 'reject':
            memories.reject(path!, version);
            say(`Rejected ${shown(book, path!)}`);
            return 0;
          case 'import':
            return await importMemories(book, path as ImportTool, { projectDir: projectKey, from: values.from, dryRun: values['dry-run'] === true }, say);
        }
      });
    } finally {
      await session.close();
    }
  } catch (err) {
    if ((err instanceof ContractError || err instanceof MemoryBookError) && err.code === 'bad_request') throw new UsageError(err.message);
    throw err;
  } finally {
    db.close();
  }
}

/** `--version N`: a version number, from 1. */
function versionFlag(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(raw.trim())) throw new UsageError(`--version must be a version number from 1 (got '${raw}')`);
  return Number(raw.trim());
}

/** Active memories one path a line (the project's, then global/), or the proposals waiting with who wrote them beside what. */
async function list(memories: MemoriesService, proposed: boolean, say: (line: string) => void): Promise<number> {
  if (proposed) {
    for (const m of (await memories.list({ status: 'proposed' })).entries) say(proposalLine(m));
    return 0;
  }
  for (let page = await memories.list({ limit: MAX_MEMORY_PAGE }); ; page = await memories.list({ after: page.next, limit: MAX_MEMORY_PAGE })) {
    for (const m of page.entries) say(m.path);
    if (page.next === null) return 0;
  }
}

/** `/memories/x.md (proposed) version 2 by agent (thread t1, turn 1) from read_file /README.md, ls /docs/` */
function proposalLine(m: MemoryEntry): string {
  const from = m.sources !== undefined && m.sources.length > 0 ? ` from ${m.sources.join(', ')}` : '';
  return `${m.path} (proposed) version ${m.version} by ${m.writer}${from}`;
}

/** Every version, oldest first: `v3  AT  ACTION  STATUS  WRITER  sources: …`, or with `--json` an array of them. */
async function log(book: MemoryBook, path: string, json: boolean, output: NodeJS.WritableStream, say: (line: string) => void): Promise<number> {
  const versions = await versionsOf(book, path);
  if (json) {
    output.write(terminalSafeJson(versions.map(versionJson)) + '\n');
    return 0;
  }
  for (const v of versions) {
    const sources = v.sources.length > 0 ? `  sources: ${v.sources.join(', ')}` : '';
    say(`v${v.version}  ${v.at}  ${v.action}  ${v.status}  ${writerLabel(v.writer)}${sources}`);
  }
  return 0;
}

/**
 * A memory's versions. One kept before versions existed has none recorded yet: it is its
 * version 1, the person's (as the records count it until its next change). A path that never
 * held a memory is not found.
 */
async function versionsOf(book: MemoryBook, path: string): Promise<MemoryVersion[]> {
  const recorded = book.history(path);
  if (recorded.length > 0) return recorded;
  const place = book.placeOf(path);
  const [raw, stat] = [await place.store.readRaw(place.path), await place.store.stat(place.path)];
  if (raw.data === undefined) throw new MemoryBookError(`'${book.shown(place.scope, place.path)}' not found`, 'not_found');
  const at = stat.info?.modifiedAt ?? new Date().toISOString();
  return [{ scope: place.scope, path: place.path, version: 1, action: 'write', status: 'active', content: new TextDecoder().decode(raw.data), writer: { kind: 'person' }, sources: [], thread: null, at }];
}

/** A version for `--json`: the writer as the records hold it (`{"kind": "agent", "thread": …}`) and as people read it (`writerLabel`, as the window's history shows). */
function versionJson(v: MemoryVersion): Record<string, unknown> {
  return {
    version: v.version,
    action: v.action,
    status: v.status,
    at: v.at,
    writer: v.writer,
    writerLabel: writerLabel(v.writer),
    ...(v.thread !== null ? { thread: v.thread } : {}),
    sources: v.sources,
    text: v.content,
  };
}

function versionText(book: MemoryBook, path: string, version: number): string {
  const found = book.history(path).find((v) => v.version === version);
  if (found === undefined) throw new MemoryBookError(`${shown(book, path)} has no version ${version}`, 'not_found');
  if (found.content === null) throw new MemoryBookError(`version ${version} of ${shown(book, path)} deleted it: it has no text`, 'not_found');
  return found.content;
}

function shown(book: MemoryBook, path: string): string {
  const place = book.placeOf(path);
  return book.shown(place.scope, place.path);
}

function latest(book: MemoryBook, path: string): number | undefined {
  return book.history(path).at(-1)?.version;
}

/**
 * Another agent's memories, one per file, under names not yet taken (SPEC §25 Import): each
 * line `/memories/x.md ← SOURCE`; with `dryRun` nothing is written.
 */
async function importMemories(
  book: MemoryBook,
  tool: ImportTool,
  options: { projectDir: string; from: string | undefined; dryRun: boolean },
  say: (line: string) => void,
): Promise<number> {
  const from = options.from !== undefined ? resolve(options.from) : importSourceDir(tool, { home: homedir(), projectDir: options.projectDir });
  const planned = await planImport(tool, { home: homedir(), projectDir: options.projectDir, from });
  const scopeOf = (scope: 'project' | 'global') => (scope === 'global' ? GLOBAL_SCOPE : book.projectScope);
  const placed = await placeImports(planned, async (scope, path) => (await book.storeOf(scopeOf(scope)).stat(path)).info !== undefined);
  for (const memory of placed) {
    const to = book.shown(scopeOf(memory.scope), memory.path);
    if (!options.dryRun) await book.write(to, memory.content, { kind: 'import', tool }, 'import');
    say(`${to} ← ${memory.source}`);
  }
  if (placed.length === 0) process.stderr.write(`deepdesk memories: nothing to import from ${terminalSafe(from, { singleLine: true })}\n`);
  return 0;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
