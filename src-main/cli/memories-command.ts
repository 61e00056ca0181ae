// `deepdesk memories ls | cat PATH | write PATH (stdin) | rm PATH` over /memories/, in SQLite
// or the store `--memories-store` (else Settings) names.

import { openDatabase } from '../core/backends/store/store';
import { terminalSafe as safeLine } from '../core/text/terminal-safe';
import { databasePath, resolveDataDir } from '../app/data-dir';
import { ContractError, MAX_MEMORY_PAGE } from '../app/contract';
import { MEMORY_AUTHOR_USER, MemoriesService } from '../app/memories/memories-service';
import { terminalSafe } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { parseCommand, UsageError } from './usage';
import { memoriesStoreFlag, openSessionMounts } from './mount-flags';

export interface MemoriesIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

const ACTIONS: readonly string[] = SUBCOMMANDS.memories;

export async function memoriesCommand(argv: string[], io: MemoriesIo = { input: process.stdin, output: process.stdout }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.memories);
  const [action, path, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (action === undefined || !ACTIONS.includes(action)) throw new UsageError('expected one of: memories ls | cat PATH | write PATH | rm PATH');
  if (action !== 'ls' && path === undefined) throw new UsageError(`memories ${action} needs a PATH`);
  if (action === 'ls' && path !== undefined) throw new UsageError('memories ls takes no PATH');
  const memoriesStore = memoriesStoreFlag(values['memories-store']);
  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(databasePath(dataDir));
  const session = openSessionMounts({
    dataDir,
    env: process.env,
    db,
    flags: [],
    memoriesStore,
    say: (line) => void process.stderr.write(`deepdesk: ${safeLine(line, { singleLine: true })}\n`),
  });
  const memories = new MemoriesService(session.memories.store.withAuthor(MEMORY_AUTHOR_USER), () => undefined);
  // Memories are written by the model: on a terminal, its control characters are shown, not obeyed.
  const shown = (text: string) => ((io.output as { isTTY?: boolean }).isTTY ? terminalSafe(text) : text);
  try {
    if (action === 'ls') {
      for (let page = await memories.list({ limit: MAX_MEMORY_PAGE }); ; page = await memories.list({ after: page.next, limit: MAX_MEMORY_PAGE })) {
        io.output.write(shown(page.entries.map((m) => `${m.path}\n`).join('')));
        if (page.next === null) break;
      }
    } else if (action === 'cat') {
      io.output.write(shown((await memories.read(path!)).text));
    } else if (action === 'write') {
      await memories.write(path!, await readAll(io.input));
    } else {
      await memories.delete(path!);
    }
    return 0;
  } catch (err) {
    if (err instanceof ContractError && err.code === 'bad_request') throw new UsageError(err.message);
    throw err;
  } finally {
    await session.close();
    db.close();
  }
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
