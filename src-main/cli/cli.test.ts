// The CLI as a person runs it: the built `deepdesk` bin in a child process.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MEMORY_PAGE } from '../app/contract';
import { databasePath } from '../app/base/data-dir';
import { MEMORIES_NAMESPACE } from '../core/backends/store/memory-store-api';
import { StoreBackend } from '../core/backends/store/store';
import { removeDataDir } from '../app/host/testing/remove-data-dir';
import { proposedNotice } from '../core/memories/memory-types';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function deepdesk(args: string[], stdin = ''): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env: { ...process.env, DEEPDESK_HOME: dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let folder: string;
let dataDir: string;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-cli-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-cli-data-'));
});
afterEach(() => {
  removeDataDir(dataDir, folder);
});

const lines = (calls: unknown[]) => calls.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('\n') + '\n';
const outputs = (r: RunResult) => r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { output: string; image?: { mimeType: string } });

describe('deepdesk tools', () => {
  it('answers one JSON line per call, in order, with the agent formats and guard', async () => {
    writeFileSync(join(folder, 'a.txt'), 'one\ntwo\n');
    const r = await deepdesk(
      ['tools', '--folder', folder],
      lines([
        { tool: 'ls', args: {} },
        { tool: 'write_file', args: { file_path: '/a.txt', content: 'x' } },
        { tool: 'read_file', args: { file_path: '/a.txt' } },
        'this is not json',
        { tool: 'edit_file', args: { file_path: '/a.txt', old_string: 'two', new_string: 'three' } },
        { tool: 'nope', args: {} },
        { tool: 'read_file', args: { file_path: '../x' } },
        { tool: 'execute', args: { command: 'cat a.txt' } },
        { tool: 'write_file', args: { file_path: '/memories/m.md', content: 'remember\n' } },
      ]),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = outputs(r).map((o) => o.output);
    expect(out).toHaveLength(9);
    expect(out[0]).toBe('/a.txt (8 bytes)\n/memories/ (directory)');
    expect(out[1]).toMatch(/^Error: .*read_file/);
    expect(out[2]).toBe('     1\tone\n     2\ttwo');
    expect(out[3]).toMatch(/^Error: invalid JSON/);
    expect(out[4]).toBe("Successfully replaced 1 instance(s) of the string in '/a.txt'");
    expect(out[5]).toBe("Error: unknown tool 'nope'");
    expect(out[6]).toMatch(/^Error: /);
    expect(out[7]).toBe('one\nthree\n[Command succeeded with exit code 0]');
    // Whatever drives `deepdesk tools` is no person: its memory is proposed (SPEC §25).
    expect(out[8]).toBe(proposedNotice('/memories/m.md'));
    expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('one\nthree\n');
    expect(existsSync(join(dataDir, 'deepdesk.db'))).toBe(true);
  });

  it('returns image metadata for images', async () => {
    writeFileSync(join(folder, 'p.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const r = await deepdesk(['tools', '--folder', folder], lines([{ tool: 'read_file', args: { file_path: '/p.png' } }]));
    expect(outputs(r)[0]?.image).toEqual({ mimeType: 'image/png' });
  });

  it('keeps memories across sessions in the data dir (global ones in every folder)', async () => {
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ memories: { review: 'off' } }));
    await deepdesk(['tools', '--folder', folder], lines([{ tool: 'write_file', args: { file_path: '/memories/global/k.md', content: 'kept\n' } }]));
    const other = mkdtempSync(join(tmpdir(), 'deepdesk-cli-other-'));
    try {
      const r = await deepdesk(['tools', '--folder', other], lines([{ tool: 'read_file', args: { file_path: '/memories/global/k.md' } }]));
      expect(outputs(r)[0]?.output).toBe('     1\tkept');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('exits 2 on bad usage', async () => {
    expect((await deepdesk(['tools', '--bogus'])).code).toBe(2);
    expect((await deepdesk(['tools', '--folder', join(folder, 'missing')])).code).toBe(2);
    expect((await deepdesk(['frobnicate'])).code).toBe(2);
  });
});

describe('deepdesk memories', () => {
  it('writes, lists, prints and removes memories', async () => {
    expect((await deepdesk(['memories', 'write', '/memories/notes.md'], 'hello\n')).code).toBe(0);
    expect((await deepdesk(['memories', 'write', 'deep/x.md'], 'x')).code).toBe(0);
    expect((await deepdesk(['memories', 'ls'])).stdout).toBe('/memories/deep/x.md\n/memories/notes.md\n');
    expect((await deepdesk(['memories', 'cat', '/memories/notes.md'])).stdout).toBe('hello\n');
    expect((await deepdesk(['memories', 'rm', 'notes.md'])).code).toBe(0);
    const missing = await deepdesk(['memories', 'cat', '/memories/notes.md']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'/memories/notes.md' not found");
    expect((await deepdesk(['memories', 'cat'])).code).toBe(2);
  });

  it('lists every memory, however many pages they take (kept before scopes: now global)', async () => {
    const paths = Array.from({ length: MAX_MEMORY_PAGE * 2 + 1 }, (_, i) => `/m-${String(i).padStart(4, '0')}.md`);
    const store = new StoreBackend({ db: databasePath(dataDir), namespace: MEMORIES_NAMESPACE });
    try {
      await store.uploadFiles(paths.map((path) => ({ path, content: new TextEncoder().encode('x\n') })));
    } finally {
      store.close();
    }
    expect((await deepdesk(['memories', 'ls'])).stdout).toBe(paths.map((p) => `/memories/global${p}\n`).join(''));
  });
});
