// `--folder ssh://[USER@]HOST[:PORT]/ABS/PATH` on every command (SPEC §13), as a person runs
// the built bin: a malformed URL is bad usage (exit 2) on each; a remote folder is connected
// over the system ssh (a test sshd on 127.0.0.1) and checked there before anything starts.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../core/backends/remote/testing/sshd';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
let sshd: TestSshd;
let root: string;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
  sshd = await startTestSshd();
  root = mkdtempSync(join(tmpdir(), 'deepdesk-cli-remote-'));
});
afterAll(async () => {
  await sshd?.dispose();
  rmSync(root, { recursive: true, force: true });
});

function deepdesk(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: repo,
      env: { ...process.env, DEEPDESK_HOME: join(root, 'data'), DEEPDESK_SSH_COMMAND: sshd.sshCommand, OPENAI_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const MODEL = ['--model', 'openai-compatible:m', '--base-url', 'http://127.0.0.1:9/v1'];
/** Each command that takes a remote folder, as it would be run. */
const COMMANDS: Array<[string, string[]]> = [
  ['tools', ['tools']],
  ['run', ['run', ...MODEL, 'hello']],
  ['serve', ['serve', '--port', '0']],
  ['checkpoints', ['checkpoints', 'restore', 'some-checkpoint']],
];

describe('--folder ssh://…', () => {
  it('a malformed URL is bad usage on every command, saying why', async () => {
    for (const [name, args] of COMMANDS) {
      for (const [url, why] of [
        ['ssh://box', "missing the folder's absolute path in ssh://box"],
        ['ssh://box:70000/srv', 'invalid port in ssh://box:70000/srv'],
        ['ssh://-oProxyCommand=touch%20x/p', 'invalid host'],
      ] as const) {
        const r = await deepdesk([...args, '--folder', url]);
        expect(r.code, `${name} ${url}`).toBe(2);
        expect(r.stderr, `${name} ${url}`).toContain(`deepdesk ${name}: --folder: ${why}`);
      }
    }
  });

  it('the commands that work on a local folder only say so', async () => {
    for (const name of ['trust', 'acp']) {
      const r = await deepdesk([name, '--folder', 'ssh://box/srv']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`deepdesk ${name}: ${name} works on a local folder only, not ssh://box/srv\n`);
    }
  });

  it('a remote folder that is not there is bad usage, named with its host, found so over ssh', async () => {
    const missing = join(root, 'not-there');
    for (const [name, args] of COMMANDS) {
      const r = await deepdesk([...args, '--folder', sshd.folderUrl(missing)]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toBe(`deepdesk ${name}: There is no folder at deepdesk-test:${missing}.\n`);
    }
  });

  it('a host that cannot be reached is one line naming it, exit 1', async () => {
    const r = await deepdesk(['tools', '--folder', 'ssh://deepdesk-test:1/tmp']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk tools: cannot connect \(deepdesk-test:1\): .*\n$/);
  });

  it('deepdesk tools works on the remote folder: reads, writes, edits and runs commands there', async () => {
    const folder = join(root, 'tools-proj');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'notes.txt'), 'one\r\ntwo\r\n');
    const calls = [
      { tool: 'read_file', args: { file_path: '/notes.txt' } },
      { tool: 'edit_file', args: { file_path: '/notes.txt', old_string: 'two', new_string: 'three' } },
      { tool: 'write_file', args: { file_path: '/new/made.txt', content: 'made\n' } },
      { tool: 'execute', args: { command: 'cat new/made.txt; pwd' } },
      { tool: 'grep', args: { pattern: 'three', path: '/' } },
    ];
    const r = await deepdesk(['tools', '--folder', sshd.folderUrl(folder)], calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const outputs = r.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { output: string }).output);
    expect(outputs[0]).toBe('     1\tone\n     2\ttwo');
    expect(outputs[1]).toBe("Successfully replaced 1 instance(s) of the string in '/notes.txt'");
    expect(outputs[2]).toBe('Updated file /new/made.txt');
    expect(outputs[3]).toContain(`made\n${folder}`);
    expect(outputs[4]).toContain('/notes.txt');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('one\r\nthree\r\n');
    expect(readFileSync(join(folder, 'new/made.txt'), 'utf8')).toBe('made\n');
  });
});
