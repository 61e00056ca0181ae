// The `$ command` line of an agent command's terminal view shows every invisible or
// controlling code point visibly, so the terminal draws exactly what runs.
import { describe, expect, it } from 'vitest';
import { CommandView, promptLines } from './command-view';

const FORMAT = /^\p{Cf}$/u;

describe('the typed command line', () => {
  it('escapes controls as ^X and every format, separator and default-ignorable code point as <U+XXXX>', () => {
    expect(promptLines('echo \x1b[2Jhi')).toBe('$ echo ^[[2Jhi');
    const hidden: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCodePoint(code);
      if (FORMAT.test(c) || /^[\p{Zl}\p{Zp}]$/u.test(c)) hidden.push(code);
    }
    expect(hidden.length).toBeGreaterThan(160);
    for (const code of hidden) {
      const line = promptLines(`a${String.fromCodePoint(code)}b`);
      expect(line, `U+${code.toString(16)}`).toBe(`$ a<U+${code.toString(16).toUpperCase().padStart(4, '0')}>b`);
    }
  });

  it('a combining mark standing alone is escaped; one on a letter is kept', () => {
    expect(promptLines('\u0301rm x')).toBe('$ <U+0301>rm x');
    expect(promptLines('caf\u0065\u0301')).toBe('$ caf\u0065\u0301');
  });

  it('keeps each line of a multi-line command on its own prompt line', () => {
    expect(promptLines('a\nb\n')).toBe('$ a\r\n> b');
  });
});

describe('look-alike spaces', () => {
  it('every space but U+0020 is escaped, so one argument never reads as two', () => {
    for (const code of [0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x202f, 0x205f, 0x3000]) {
      expect(promptLines(`rm a${String.fromCodePoint(code)}b`)).toBe(`$ rm a<U+${code.toString(16).toUpperCase().padStart(4, '0')}>b`);
    }
  });
});

describe('what a command view shows', () => {
  const shown = (view: CommandView): string => view.snapshot().split('\r\n').slice(1).join('\r\n');

  it('output without a pty (a provider’s sandbox) has its bare line feeds made CRLF, a CRLF split between chunks kept single', () => {
    const view = new CommandView('cmd-1', 'printf …', true);
    view.output('one\ntwo\r');
    view.output('\nthree\n');
    view.finish({ output: 'one\ntwo\nthree\n', exitCode: 0, truncated: false });
    const text = shown(view);
    // No line feed without its carriage return: every line starts at the left edge (no staircase).
    expect(text).not.toMatch(/[^\r]\n/);
    expect(text.startsWith('one\r\ntwo\r\nthree\r\n')).toBe(true);
    view.dispose();
  });

  it('a pty’s output is shown as it came', () => {
    const view = new CommandView('cmd-2', 'ls', true);
    view.attach({ write: () => undefined, resize: () => undefined, pause: () => undefined, resume: () => undefined });
    view.output('a\nb');
    expect(shown(view)).toContain('a\nb');
    view.dispose();
  });

  it('a command that failed without streaming shows what it answered, not only its status', () => {
    const view = new CommandView('cmd-3', 'echo two', true);
    view.finish({ output: 'Error: The Daytona sandbox X is gone (deleted or expired).', exitCode: 1, truncated: false });
    const text = shown(view);
    expect(text).toContain('Error: The Daytona sandbox X is gone');
    expect(text).toContain('[exit code 1]');
    view.dispose();
  });
});
