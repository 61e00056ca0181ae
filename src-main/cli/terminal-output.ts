// The CLI's one writer for its stdout and stderr (issue 51 §2): everything a command prints
// is shown, never obeyed. A folder's file names, a hook's command, a plugin's manifest, a
// thread's title, a server's error: whatever reaches the terminal passes terminalSafe, so an
// ESC, OSC or C1 byte arrives as a visible escape. main.ts guards the streams before any
// command runs, so a line a command forgets to escape is escaped all the same. Content the
// person asked for (an answer, a memory, a diff, an export) goes through writeContent: raw
// to a file or pipe, where it is data, and escaped on a terminal.

import { terminalSafe } from '../core/text/terminal-safe';

type Write = NodeJS.WritableStream['write'];

const RAW_WRITE = Symbol('deepdesk.rawWrite');

type Guardable = NodeJS.WritableStream & { [RAW_WRITE]?: Write; isTTY?: boolean };

/** Makes every later `stream.write` terminal-safe (newlines and tabs kept). */
export function guardTerminalOutput(stream: NodeJS.WritableStream): void {
  const target = stream as Guardable;
  if (target[RAW_WRITE] !== undefined) return;
  const raw = target.write.bind(target) as Write;
  target[RAW_WRITE] = raw;
  target.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    (raw as (chunk: string, ...rest: unknown[]) => boolean)(terminalSafe(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')), ...(typeof rest[0] === 'string' ? rest.slice(1) : rest))) as Write;
}

/** Writes content the person asked for: as it is to a file or pipe, terminal-safe on a terminal. */
export function writeContent(stream: NodeJS.WritableStream, text: string): boolean {
  const target = stream as Guardable;
  if (target.isTTY === true) return target.write(terminalSafe(text));
  return (target[RAW_WRITE] ?? target.write.bind(target))(text);
}

/**
 * Asks the person one line on the terminal. The question is ours and readline's cursor
 * control and echo of the person's typing must work, so readline writes past the guard.
 */
export async function askLine(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, question: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  const raw = (output as Guardable)[RAW_WRITE];
  const unguarded = raw === undefined ? output : (new Proxy(output, { get: (target, key) => (key === 'write' ? raw : Reflect.get(target, key, target) as unknown) }) as NodeJS.WritableStream);
  // Loaded when a question is asked: most commands never ask one.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input, output: unguarded });
  // Ctrl-C at the question is the command's own Ctrl-C (readline on a terminal takes the key for itself).
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  try {
    return await rl.question(question, options);
  } finally {
    rl.close();
  }
}
