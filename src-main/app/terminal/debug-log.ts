// Opt-in trace for chasing a stuck terminal: with DEEPDESK_TERMINAL_DEBUG=/path/to/file, the
// shared terminal appends one line per event (raw pty chunks, markers, state changes, the
// person's keystrokes), each prefixed with milliseconds since the module loaded. The raw
// stream carries the markers' nonce, so the file is private (0600). Off by default.
import { appendFileSync } from 'node:fs';

const target = process.env.DEEPDESK_TERMINAL_DEBUG ?? '';
const loadedAt = Date.now();

export function terminalDebug(...parts: unknown[]): void {
  if (!target) return;
  const text = parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  try {
    appendFileSync(target, `${Date.now() - loadedAt} ${text}\n`, { mode: 0o600 });
  } catch {
    // Tracing must never break the terminal.
  }
}
