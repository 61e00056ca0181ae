// Turns what a terminal receives into plain text: escape sequences removed, CRLF turned
// into LF, a line rewritten with a lone CR (progress bars) kept as its last rewrite,
// backspaces applied and other control characters dropped.
/* eslint-disable no-control-regex -- matching control characters is this module's job */

// CSI; OSC/DCS/SOS/PM/APC ended by BEL or ST; nF (ESC with intermediates, e.g. ESC ( B);
// and the two-character escapes (ESC 7, ESC =, ESC M, ...).
const ESCAPE_SEQUENCE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]+[0-~]|\x1b[0-~]/g;

// A sequence cut off at the end of a chunk: kept until the next chunk completes it.
const INCOMPLETE_AT_END = /^\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]*\x1b?|[ -/]*)$/;

// C0 controls except TAB, LF, CR and BS (handled separately), DEL, C1 controls, and any
// ESC left over from a malformed sequence.
const OTHER_CONTROLS = /[\x00-\x07\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/** An unterminated string sequence longer than this is treated as garbage, not carried. */
const MAX_CARRY = 64 * 1024;
/** A line without a newline longer than this is committed in pieces to bound memory. */
const MAX_PENDING_LINE = 64 * 1024;

/** Removes escape sequences (colours, cursor movement, titles, hyperlinks); keeps everything else. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '');
}

/** The whole of `text` as a terminal would leave it in plain lines (see TerminalTextDecoder). */
export function terminalToText(text: string): string {
  const decoder = new TerminalTextDecoder();
  return decoder.push(text) + decoder.end();
}

/** Keeps what a terminal would show after a lone CR or backspaces in one line. */
function resolveLine(line: string): string {
  let text = line;
  if (text.includes('\r')) {
    const trimmed = text.replace(/\r+$/, '');
    const lastCr = trimmed.lastIndexOf('\r');
    text = lastCr === -1 ? trimmed : trimmed.slice(lastCr + 1);
  }
  if (text.includes('\x08')) {
    const chars: string[] = [];
    for (const ch of text) {
      if (ch === '\x08') chars.pop();
      else chars.push(ch);
    }
    text = chars.join('');
  }
  return text;
}

/**
 * Streaming version for chunks as they arrive from a pty: escape sequences split across
 * chunks are carried over, and the current unfinished line is held back until its newline
 * (a CR may still rewrite it). Memory stays bounded: a huge unfinished line is committed in
 * pieces and an unterminated escape string is dropped past 64 KiB.
 */
export class TerminalTextDecoder {
  private carry = '';
  private line = '';

  /** Feeds a chunk; returns the plain text of the lines it completed (each ending in '\n'). */
  push(chunk: string): string {
    let text = this.carry + chunk;
    this.carry = '';
    const lastEsc = text.lastIndexOf('\x1b');
    if (lastEsc !== -1) {
      let start = lastEsc;
      // ESC at the very end may be the first half of the ST ending an open string sequence.
      if (lastEsc === text.length - 1) {
        const prev = text.lastIndexOf('\x1b', lastEsc - 1);
        if (prev !== -1 && /^\x1b[\]PX^_][^\x07\x1b]*\x1b$/.test(text.slice(prev))) start = prev;
      }
      const tail = text.slice(start);
      if (tail.length <= MAX_CARRY && INCOMPLETE_AT_END.test(tail)) {
        this.carry = tail;
        text = text.slice(0, start);
      }
    }
    text = text.replace(ESCAPE_SEQUENCE, '').replace(OTHER_CONTROLS, '');
    return this.takeLines(text);
  }

  /** Flushes the unfinished last line (without a trailing newline); drops a dangling escape. */
  end(): string {
    this.carry = '';
    const rest = resolveLine(this.line);
    this.line = '';
    return rest;
  }

  private takeLines(text: string): string {
    const lastNl = text.lastIndexOf('\n');
    if (lastNl === -1) {
      this.line += text;
      return this.boundLine();
    }
    const complete = this.line + text.slice(0, lastNl + 1);
    this.line = text.slice(lastNl + 1);
    const done = /\r(?!\r*\n)|\x08/.test(complete)
      ? complete.slice(0, -1).split('\n').map(resolveLine).join('\n') + '\n'
      : complete.replace(/\r+\n/g, '\n');
    return done + this.boundLine();
  }

  private boundLine(): string {
    if (this.line.length <= MAX_PENDING_LINE) return '';
    // Collapse CR rewrites first: a long-running progress bar stays one short line.
    const endsWithCr = this.line.endsWith('\r');
    const resolved = resolveLine(this.line);
    if (resolved.length <= MAX_PENDING_LINE) {
      this.line = endsWithCr ? resolved + '\r' : resolved;
      return '';
    }
    this.line = endsWithCr ? '\r' : '';
    return resolved;
  }
}
