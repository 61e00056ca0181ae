// The tail of a process's stderr as plain lines: split across chunks, escapes removed,
// bounded, with listeners for each line as it comes.
import { stripAnsi } from '../text/ansi';

/** A line longer than this is cut (a server dumping a blob on stderr must not grow memory). */
const MAX_LINE_CHARS = 4096;

export class LogTail {
  private readonly lines: string[] = [];
  private pending = '';
  private readonly listeners = new Set<(line: string) => void>();
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxLines: number) {}

  push(chunk: Buffer): void {
    const parts = (this.pending + this.decoder.decode(chunk, { stream: true })).split('\n');
    this.pending = parts.pop() ?? '';
    if (this.pending.length > MAX_LINE_CHARS) {
      parts.push(this.pending);
      this.pending = '';
    }
    for (const part of parts) this.add(part);
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    if (rest.length > 0) this.add(rest);
  }

  /** A line of Deepdesk's own about the process (what its guard undid), among its output. */
  note(line: string): void {
    this.add(line);
  }

  text(): string {
    return this.lines.join('\n');
  }

  onLine(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private add(raw: string): void {
    // A lone CR (progress output) keeps what came after it, as a terminal would show it.
    const line = stripAnsi(raw.replace(/\r$/, '').split('\r').pop() ?? '').slice(0, MAX_LINE_CHARS);
    if (line.trim().length === 0) return;
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
    for (const listener of this.listeners) {
      try {
        listener(line);
      } catch {
        // A failing listener must not stop the log.
      }
    }
  }
}
