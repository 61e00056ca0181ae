// issue 9 §4: nothing the model writes can drive the person's terminal. The built
// `deepdesk run --approve ask` on a real pty, against a model whose every string is hostile.

import * as pty from 'node-pty';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { removeDataDir } from '../app/host/testing/remove-data-dir';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-spoof-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-spoof-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  removeDataDir(dataDir, folder);
});

// Sequences a model would use to clear the screen, move the cursor, retitle the window,
// hide text, or forge a prompt; 7-bit and 8-bit (C1) forms.
const HOSTILE = ['\x1b[2J\x1b[H', '\x1b]0;PWNED\x07', '\x1b[8m', '\x9b2J', '\x1bP+q\x1b\\', '\r\x1b[2K', '\u202e'];
const FAKE = `${HOSTILE.join('')}$ npm test\n\n> all 12 tests passed\n`;

it('the approval question, progress lines and the answer carry no escape sequence from the model', async () => {
  server.push(
    { toolCalls: [{ name: `execute`, args: { command: `touch MARK${HOSTILE.join('')} # ${FAKE}`, reason: FAKE, timeout: 30 } }] },
    { text: `done${HOSTILE.join('')}` },
  );
  const term = pty.spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'ask', 'go'], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>,
    cols: 200,
    rows: 50,
  });
  let screen = '';
  term.onData((d) => (screen += d));
  const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
  // Waits for the question (a state); the bound is only against a hang.
  const deadline = Date.now() + 45_000;
  while (!screen.includes('Approve?') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(screen).toContain('execute needs approval');
  term.write('n\r');
  expect(await exited).toBe(0);
  expect(screen).toContain('done');
  for (const seq of HOSTILE) expect(screen).not.toContain(seq);
  expect(screen).not.toContain('\x9b');
  // The model's characters are shown, escaped, where it put them.
  expect(screen).toContain('\\x1b[2J\\x1b[H');
  expect(screen).toContain('\\u202e');
  expect(existsSync(join(folder, 'MARK'))).toBe(false);
}, 180_000);

it('the terminal question names the real target of a write through a symlink', async () => {
  const { mkdirSync, symlinkSync, writeFileSync, readFileSync } = await import('node:fs');
  mkdirSync(join(folder, '.git'));
  mkdirSync(join(folder, 'docs'));
  writeFileSync(join(folder, '.git', 'config'), '[core]\n');
  symlinkSync('../.git/config', join(folder, 'docs', 'notes.md'));
  // Read first: a write to an unread file is refused before anyone is asked.
  server.push(
    { toolCalls: [{ name: 'read_file', args: { file_path: '/docs/notes.md' } }] },
    { toolCalls: [{ name: 'write_file', args: { file_path: '/docs/notes.md', content: '[core]\n\tfsmonitor = touch PWNED\n' } }] },
    { text: 'ok' },
  );
  const term = pty.spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'notes'], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>,
    cols: 200,
    rows: 50,
  });
  let screen = '';
  term.onData((d) => (screen += d));
  const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
  // Waits for the question (a state); the bound is only against a hang.
  const deadline = Date.now() + 45_000;
  while (!screen.includes('Approve?') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(screen).toContain('Writes to /.git/config (via symlink /docs/notes.md)');
  term.write('n\r');
  expect(await exited).toBe(0);
  expect(readFileSync(join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n');
}, 180_000);
