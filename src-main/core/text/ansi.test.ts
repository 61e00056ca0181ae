import { describe, expect, it } from 'vitest';
import { stripAnsi, TerminalTextDecoder, terminalToText } from './ansi';

describe('stripAnsi', () => {
  it('removes colours, cursor movement and mode switches', () => {
    expect(stripAnsi('\x1b[31mred\x1b[0m \x1b[1;32mgreen\x1b[m')).toBe('red green');
    expect(stripAnsi('a\x1b[2K\x1b[1Gb\x1b[?25l\x1b[?2004h')).toBe('ab');
    expect(stripAnsi('\x1b(Bx\x1b=y\x1b>z\x1b7\x1b8')).toBe('xyz');
  });

  it('removes OSC titles and hyperlinks ended by BEL or ST', () => {
    expect(stripAnsi('\x1b]0;my title\x07after')).toBe('after');
    expect(stripAnsi('\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\')).toBe('link');
    expect(stripAnsi('\x1bP+q544e\x1b\\ok')).toBe('ok');
  });

  it('keeps text with no escapes as it is', () => {
    expect(stripAnsi('plain\ttext\r\n')).toBe('plain\ttext\r\n');
  });
});

describe('terminalToText', () => {
  it('turns CRLF into LF and drops control characters but keeps tabs', () => {
    expect(terminalToText('a\r\nb\tc\x07\r\n')).toBe('a\nb\tc\n');
  });

  it('keeps the last rewrite of a line rewritten with CR', () => {
    expect(terminalToText('progress 10%\rprogress 50%\rprogress 100%\r\ndone\r\n')).toBe('progress 100%\ndone\n');
    expect(terminalToText('spinner\r\x1b[Kresult\r\n')).toBe('result\n');
  });

  it('treats CR CR LF as one line end', () => {
    expect(terminalToText('one\r\r\ntwo\r\r\n')).toBe('one\ntwo\n');
  });

  it('applies backspaces', () => {
    expect(terminalToText('abX\x08c\n')).toBe('abc\n');
  });

  it('keeps an unfinished last line', () => {
    expect(terminalToText('a\nb')).toBe('a\nb');
  });
});

describe('TerminalTextDecoder', () => {
  const sample =
    '\x1b]0;title\x07\x1b[1;31mError:\x1b[0m héllo 日本\r\n' +
    '\x1b]8;;file:///x\x1b\\link\x1b]8;;\x1b\\\r\n' +
    'bar 1%\rbar 99%\r\n\x1b(Bend\r\n';
  const expected = 'Error: héllo 日本\nlink\nbar 99%\nend\n';

  it('gives the same text whatever the chunk boundaries', () => {
    expect(terminalToText(sample)).toBe(expected);
    for (let i = 0; i <= sample.length; i++) {
      for (const j of [i, Math.min(sample.length, i + 1), Math.min(sample.length, i + 3)]) {
        const d = new TerminalTextDecoder();
        const out = d.push(sample.slice(0, i)) + d.push(sample.slice(i, j)) + d.push(sample.slice(j)) + d.end();
        expect(out, `split at ${i},${j}`).toBe(expected);
      }
    }
  });

  it('holds a CR back until it knows whether LF follows', () => {
    const d = new TerminalTextDecoder();
    expect(d.push('abc\r')).toBe('');
    expect(d.push('\ndef\r')).toBe('abc\n');
    expect(d.push('XY')).toBe('');
    expect(d.end()).toBe('XY');
  });

  it('commits a huge line without newline in pieces and loses nothing', () => {
    const d = new TerminalTextDecoder();
    let out = '';
    const piece = 'x'.repeat(10_000);
    for (let i = 0; i < 100; i++) out += d.push(piece);
    expect(out.length).toBeGreaterThan(0);
    out += d.end();
    expect(out).toBe('x'.repeat(1_000_000));
  });

  it('collapses a long-running progress line instead of growing', () => {
    const d = new TerminalTextDecoder();
    let out = '';
    for (let i = 0; i <= 100_000; i++) out += d.push(`\rdownloading ${i}`);
    expect(out).toBe('');
    expect(d.end()).toBe('downloading 100000');
  });

  it('drops an unterminated escape string at the end', () => {
    const d = new TerminalTextDecoder();
    expect(d.push('ok\n\x1b]0;never ends')).toBe('ok\n');
    expect(d.end()).toBe('');
  });
});
