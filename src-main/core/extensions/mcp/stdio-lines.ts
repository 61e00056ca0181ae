// Newline-delimited frames from an MCP stdio server, bounded (issue 37): a server decides
// how much it writes, so a line is held only up to a limit. Past it the server has broken
// the protocol; what it sends after is dropped, never buffered.

/**
 * The longest message a stdio server may send. 8 MiB holds the largest image a provider
 * takes (Anthropic's 5 MB) base64-encoded with its JSON around it, and any text result
 * (which is evicted to a file past 80,000 characters anyway); more is a server's fault.
 */
export const MCP_STDIO_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** How deep a message may nest: JSON schemas and results nest a few levels, 128 is far past them. */
export const MCP_MAX_MESSAGE_DEPTH = 128;

const NEWLINE = 0x0a;

export interface Frames {
  lines: string[];
  /** A line passed the limit: the stream is broken from here on. */
  overflow: boolean;
}

/** Splits a byte stream into lines (without `\n` or one trailing `\r`), holding at most `maxLineBytes` of an unfinished one. */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private broken = false;

  constructor(private readonly maxLineBytes = MCP_STDIO_MAX_LINE_BYTES) {}

  /** The complete lines in `chunk`; `overflow` once a line passed the limit (and on every push after). */
  push(chunk: Buffer): Frames {
    if (this.broken) return { lines: [], overflow: true };
    const lines: string[] = [];
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, start)) {
      if (this.pendingBytes + (i - start) > this.maxLineBytes) return this.overflow(lines);
      this.pending.push(chunk.subarray(start, i));
      lines.push(this.takeLine());
      start = i + 1;
    }
    if (this.pendingBytes + (chunk.length - start) > this.maxLineBytes) return this.overflow(lines);
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
    return { lines, overflow: false };
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private takeLine(): string {
    const line = Buffer.concat(this.pending).toString('utf8');
    this.clear();
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }

  private overflow(lines: string[]): Frames {
    this.broken = true;
    this.clear();
    return { lines, overflow: true };
  }
}

/** The one line a server that broke the limit is failed with. */
export function overLimitMessage(maxLineBytes = MCP_STDIO_MAX_LINE_BYTES): string {
  return `the server sent a message longer than ${maxLineBytes / (1024 * 1024)} MB on stdout (a line without its end); it was stopped`;
}

/** The one line a server that sent a message nested too deep is failed with. */
export function tooDeepMessage(): string {
  return `the server sent a message nested deeper than ${MCP_MAX_MESSAGE_DEPTH} levels; it was stopped`;
}
