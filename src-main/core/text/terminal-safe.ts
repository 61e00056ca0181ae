// Model-controlled text printed to a terminal (issue 9 §4): every character that a
// terminal would act on instead of showing (C0 and C1 controls, DEL, and therefore every
// ESC/CSI/OSC/DCS sequence) and every character that hides or reorders text (bidi
// controls, zero-width and other format characters, line and paragraph separators,
// default-ignorable code points, combining marks standing alone) is replaced by a visible
// escape such as `\x1b` or `\u202e`. Newlines and tabs stay as they are. The classes are the
// window's (invisible.ts), so a command reads the same in both.

import { invisiblePatternSource } from './invisible';

/** Characters that change what a person sees without showing themselves (made at first need: ~1 ms of a command's start). */
let hidden: RegExp | undefined;
const hiddenPattern = (): RegExp => (hidden ??= new RegExp(invisiblePatternSource(), 'gu'));
/** Text no terminal acts on and nothing hides in: printable ASCII, with or without newlines and tabs. */
const PLAIN = /^[\x20-\x7e\n\t]*$/;
const PLAIN_LINE = /^[\x20-\x7e]*$/;

/** The escape a hidden character is shown as: `\x1b`, `\u202e`, `\u{e0041}`. */
export function visibleEscape(char: string): string {
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` with every control and invisible character shown as an escape; `\n` and `\t` kept unless `singleLine`. */
export function terminalSafe(text: string, options: { singleLine?: boolean } = {}): string {
  if ((options.singleLine ? PLAIN_LINE : PLAIN).test(text)) return text;
  return text.replace(hiddenPattern(), (char) => (!options.singleLine && (char === '\n' || char === '\t') ? char : visibleEscape(char)));
}

/** A JSON string literal for `text` whose hidden characters are `\uXXXX` escapes (JSON's own short forms for controls). */
function safeJsonString(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(hiddenPattern())) {
    out += JSON.stringify(text.slice(last, match.index)).slice(1, -1);
    const char = match[0];
    out += char.charCodeAt(0) < 0x20 ? JSON.stringify(char).slice(1, -1) : char.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    last = match.index + char.length;
  }
  return `"${out}${JSON.stringify(text.slice(last)).slice(1, -1)}"`;
}

/**
 * JSON.stringify for a line printed to a terminal or pipe: JSON already escapes C0
 * controls; this also escapes DEL, C1 controls, invisible format characters and combining
 * marks standing alone (judged within each string, so a mark at a string's start never
 * sits on its quote) as `\uXXXX`, which JSON readers decode back to the same string.
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space);
  // Outside string literals JSON holds only punctuation, digits, letters and whitespace.
  // The literals are found by a scan, not a regex: a regex over a literal of megabytes
  // recurses once per character and overflows the stack.
  let out = '';
  let at = 0;
  while (at < json.length) {
    const open = json.indexOf('"', at);
    if (open < 0) break;
    const close = closingQuote(json, open);
    out += json.slice(at, open) + safeJsonString(JSON.parse(json.slice(open, close + 1)) as string);
    at = close + 1;
  }
  return out + json.slice(at);
}

/** The index of the quote that ends the JSON string literal opening at `open`. */
function closingQuote(json: string, open: number): number {
  let i = open + 1;
  for (let c = json.charCodeAt(i); c !== 0x22; c = json.charCodeAt(i)) i += c === 0x5c ? 2 : 1;
  return i;
}
