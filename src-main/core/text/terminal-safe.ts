// Model-controlled text printed to a terminal (issue 9 §4): every character that a
// terminal would act on instead of showing (C0 and C1 controls, DEL, and therefore every
// ESC/CSI/OSC/DCS sequence) and every character that hides or reorders text (bidi
// controls, zero-width and other invisible format characters) is replaced by a visible
// escape such as `\x1b` or `\u202e`. Newlines and tabs stay as they are.

/** Characters that change what a person sees without showing themselves. */
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

function visible(char: string): string {
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` with every control and invisible character shown as an escape; `\n` and `\t` kept unless `singleLine`. */
export function terminalSafe(text: string, options: { singleLine?: boolean } = {}): string {
  return text.replace(HIDDEN, (char) => (!options.singleLine && (char === '\n' || char === '\t') ? char : visible(char)));
}

/**
 * JSON.stringify for a line printed to a terminal or pipe: JSON already escapes C0
 * controls; this also escapes DEL, C1 controls and invisible format characters as
 * `\uXXXX`, which JSON readers decode back to the same string.
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(HIDDEN, (char) => {
    if (char === '\n') return char; // only the indentation's own line breaks are left unescaped
    const code = char.codePointAt(0)!;
    if (code > 0xffff) return char.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
