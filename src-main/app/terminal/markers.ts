// Finds the shell integration's markers in the raw pty stream. A marker is an OSC sequence
// `ESC ] 6973 ; KIND ; NONCE ; FIELDS BEL` printed by our shell functions. Only markers that
// carry this terminal's nonce become events; every complete marker-shaped sequence is cut
// out of the stream (a forged one is dropped, not obeyed), so the window never shows them.
// A marker split across chunks is held back until the rest arrives.

export const MARKER_OSC = '6973';
const PREFIX = `\x1b]${MARKER_OSC};`;
/** A marker-shaped sequence longer than this is not ours: it is passed on as text. */
const MAX_MARKER_LENGTH = 512;
/* eslint-disable no-control-regex -- ESC and BEL delimit the markers */
const COMPLETE = /\x1b\]6973;([^\x07\x1b]*)(?:\x07|\x1b\\)/y;
const INCOMPLETE = /^\x1b\]6973;[^\x07\x1b]*\x1b?$/;
/* eslint-enable no-control-regex */

/** R: the prompt is shown; B: the shell starts a command line; S: our command starts (id, pid); E: it ended (id, status); H: setup done. */
export type MarkerKind = 'R' | 'B' | 'S' | 'E' | 'H';

export interface Marker {
  kind: MarkerKind;
  fields: string[];
}

export type StreamToken = { text: string } | { marker: Marker };

export class MarkerParser {
  private held = '';

  constructor(private readonly nonce: string) {}

  /** True while a possible marker is held back waiting for its end. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  push(chunk: string): StreamToken[] {
    const text = this.held + chunk;
    this.held = '';
    const tokens: StreamToken[] = [];
    let textStart = 0;
    let from = 0;
    let end = text.length;
    for (;;) {
      const at = text.indexOf(PREFIX, from);
      if (at === -1) break;
      COMPLETE.lastIndex = at;
      const match = COMPLETE.exec(text);
      if (match && match[0].length <= MAX_MARKER_LENGTH) {
        if (at > textStart) tokens.push({ text: text.slice(textStart, at) });
        const marker = this.accept(match[1] ?? '');
        if (marker) tokens.push({ marker });
        textStart = from = at + match[0].length;
        continue;
      }
      const rest = text.slice(at);
      if (!match && rest.length <= MAX_MARKER_LENGTH && INCOMPLETE.test(rest)) {
        end = at;
        break;
      }
      from = at + 1;
    }
    if (end === text.length) {
      // A prefix of the marker's introducer at the very end (`ESC`, `ESC ]`, `ESC ] 69`, ...).
      const esc = text.lastIndexOf('\x1b');
      if (esc >= textStart && esc > text.length - PREFIX.length && PREFIX.startsWith(text.slice(esc))) end = esc;
    }
    this.held = text.slice(end);
    if (end > textStart) tokens.push({ text: text.slice(textStart, end) });
    return tokens;
  }

  /** Gives up on a held-back partial marker: it is returned as text. */
  release(): string {
    const text = this.held;
    this.held = '';
    return text;
  }

  private accept(body: string): Marker | undefined {
    const [kind, nonce, ...fields] = body.split(';');
    if (nonce !== this.nonce) return undefined;
    if (kind !== 'R' && kind !== 'B' && kind !== 'S' && kind !== 'E' && kind !== 'H') return undefined;
    return { kind, fields };
  }
}
