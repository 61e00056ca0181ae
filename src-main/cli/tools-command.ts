// `deepdesk tools`: a JSON-lines tool session (SPEC §5). One request a line on stdin,
// one `{"output": ...}` line per request on stdout, in order. The person is the caller,
// so approval rules do not apply; path validation and the read guard do. Whatever drives it
// is no person, though: its memory writes are a protocol client's, proposed unless review is
// off (SPEC §25), and shown to this session as its own (one thread for the process).

import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { openDatabase } from '../core/backends/store/store';
import { createDefaultMounts } from '../core/backends/mounts/mounts';
import { isShellBackend } from '../core/backends/protocol';
import { filesystemTools } from '../core/tools/filesystem-tools';
import { ReadGuard } from '../core/tools/read-guard';
import { runTool, toolMap } from '../core/tools/run-tool';
import type { ToolOutput } from '../core/tools/tool';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { folderLocation } from './folder-flag';
import { openCommandFolder } from './folders';
import { folderLocationText } from '../app/places/folder-location';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, sessionFlagsOf, UsageError } from './usage';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { commitToolStep } from '../core/agent/middleware/mount-steps';
import { mountFlags, openSessionMounts, type SessionMounts } from './mount-flags';
import { asMemoryWriter, type MemoryWriteContext } from '../core/memories/write-context';
import { staleCheck } from '../app/memories/stale-check';

/** Who writes a memory through `deepdesk tools`: a client with no person's words, beside content the host cannot vouch for. */
const TOOLS_WRITER: MemoryWriteContext = { writer: { kind: 'protocol-client' }, sources: () => ['deepdesk tools'], personText: () => '' };

const requestSchema = z.object({
  tool: z.string({ error: '"tool" must be a string' }),
  args: z.record(z.string(), z.unknown(), { error: '"args" must be an object' }).optional(),
});

export interface ToolsIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

export async function toolsCommand(argv: string[], io: ToolsIo = { input: process.stdin, output: process.stdout }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.tools);
  if (positionals.length > 0) throw new UsageError(`tools takes no arguments (got '${positionals.join(' ')}')`);
  const location = folderLocation(values.folder);
  const flags = sessionFlagsOf('tools', values);
  const flaggedMounts = mountFlags(flags.mounts);
  const memoriesStore = flags.memoriesStore;
  const dataDir = resolveDataDir(values['data-dir']);
  // A remote folder is connected (and its folder checked) before anything else starts.
  const opened = await openCommandFolder(location, { dataDir });
  let db: ReturnType<typeof openDatabase> | undefined;
  let session: SessionMounts | undefined;
  try {
    db = openDatabase(databasePath(dataDir));
    const folder = folderLocationText(location);
    session = await openSessionMounts({ dataDir, env: process.env, db, folder, flags: flaggedMounts, memoriesStore, say: (line) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`) });
    const { table } = session;
    // Its `ls` of /memories/ says which memories name what the folder no longer has (SPEC §25).
    if (location.kind === 'local') await staleCheck(session.memories.book, location.path).request();
    const mounts = createDefaultMounts({
      folder,
      db,
      folderBackend: opened.backend,
      memories: session.memories.book.forThread(`tools-${randomUUID()}`),
      extraMounts: () => table.routes(),
    });
    const tools = toolMap(filesystemTools({ execute: isShellBackend(mounts.backend) }));
    const guard = new ReadGuard();
    let callNumber = 0;
    const lines = createInterface({ input: io.input, crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      callNumber++;
      // Each call is a step (SPEC §13): its changes on a git mount are committed and pushed
      // before its output is written.
      const output = await handleLine(line, async (tool, args) => {
        const toolCallId = `tools-${callNumber}`;
        const result = await asMemoryWriter(TOOLS_WRITER, () => runTool(tools, tool, args, { backend: mounts.backend, guard, toolCallId }));
        return commitToolStep(table.gitMounts(), result);
      });
      await writeLine(io.output, terminalSafeJson(output));
    }
    return 0;
  } finally {
    await session?.close();
    db?.close();
    await opened.close();
  }
}

async function handleLine(line: string, call: (tool: string, args: unknown) => Promise<ToolOutput>): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return { output: `Error: invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const request = requestSchema.safeParse(parsed);
  if (!request.success) {
    return { output: `Error: each line must be {"tool": NAME, "args": {...}}: ${request.error.issues.map((i) => i.message).join('; ')}` };
  }
  const result = await call(request.data.tool, request.data.args ?? {});
  const media = result.media;
  if (media === undefined) return { output: result.text };
  return {
    output: result.text,
    ...(media.kind === 'image' ? { image: { mimeType: media.mimeType } } : {}),
    media: { kind: media.kind, mimeType: media.mimeType, bytes: media.bytes },
  };
}

function writeLine(stream: NodeJS.WritableStream, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(line + '\n', (err) => (err ? reject(err) : resolve()));
  });
}
