// `deepdesk memories ls | cat PATH | write PATH (stdin) | rm PATH` over /memories/, in SQLite
// or the store `--memories-store` (else Settings) names.

import { openDatabase } from '../core/backends/store/store';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { ContractError, MAX_MEMORY_PAGE } from '../app/contract';
import { MEMORY_AUTHOR_USER, MemoriesService } from '../app/memories/memories-service';
import { terminalSafe } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS, SUBCOMMANDS } from './command-table';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';
import { writeContent } from './terminal-output';
import { openSessionMounts } from './mount-flags';

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
  const { memoriesStore } = sessionFlagsOf('memories', values);
  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(databasePath(dataDir));
  const session = openSessionMounts({
    dataDir,
    env: process.env,
    db,
    flags: [],
    memoriesStore,
    say: (line) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`),
  });
  const memories = new MemoriesService(session.memories.store.withAuthor(MEMORY_AUTHOR_USER), () => undefined);
  try {
    if (action === 'ls') {
      for (let page = await memories.list({ limit: MAX_MEMORY_PAGE }); ; page = await memories.list({ after: page.next, limit: MAX_MEMORY_PAGE })) {
        io.output.write(page.entries.map((m) => `${terminalSafe(m.path, { singleLine: true })}\n`).join(''));
        if (page.next === null) break;
      }
    } else if (action === 'cat') {
      // Memories are written by the model: on a terminal, its control characters are shown, not obeyed.
      writeContent(io.output, (await memories.read(path!)).text);
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
