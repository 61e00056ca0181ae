// The CLI's guarded writer on real streams: what a command writes is escaped, content goes
// raw only where it is not a terminal, and readline's own words pass the guard.

import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { askLine, guardTerminalOutput, writeContent } from './terminal-output';

function captured(isTTY: boolean): { stream: PassThrough & { isTTY?: boolean }; text: () => string } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  stream.isTTY = isTTY;
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return { stream, text: () => text };
}

it('a guarded stream shows ESC, OSC, BEL and C1 as escapes, in strings and bytes alike, and still calls back', async () => {
  const out = captured(false);
  guardTerminalOutput(out.stream);
  guardTerminalOutput(out.stream);
  const written = new Promise<void>((resolve) => out.stream.write('a\x1b[8mb\n\tc\u009b2J', () => resolve()));
  out.stream.write(Buffer.from('\x1b]52;c;eA==\x07'));
  await written;
  expect(out.text()).toBe('a\\x1b[8mb\n\tc\\x9b2J\\x1b]52;c;eA==\\x07');
});

it('content goes raw to a pipe past the guard, and escaped to a terminal', () => {
  const pipe = captured(false);
  guardTerminalOutput(pipe.stream);
  writeContent(pipe.stream, 'raw\x1b[31m');
  expect(pipe.text()).toBe('raw\x1b[31m');
  const tty = captured(true);
  guardTerminalOutput(tty.stream);
  writeContent(tty.stream, 'raw\x1b[31m');
  expect(tty.text()).toBe('raw\\x1b[31m');
});

it("a question is asked through the guard's raw write and its answer read", async () => {
  const out = captured(false);
  guardTerminalOutput(out.stream);
  const input = new PassThrough();
  const answer = askLine(input, out.stream, 'Go\x1b[1m? ');
  input.end('yes\n');
  expect(await answer).toBe('yes');
  expect(out.text()).toContain('Go\x1b[1m? ');
});
