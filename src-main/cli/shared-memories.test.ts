// `--memories-store postgres://…` through the built bin, as a team would run it (SPEC §13):
// two people (two data folders) share /memories/; the agent's memories carry its thread as
// their writer; several processes editing the same memory at once lose nothing (an edit after another
// process's change is refused for a re-read, never applied blindly); the password
// comes from PGPASSWORD, never the URL; a database that is down is an `Error: ` for the
// memory tools while the folder's tools go on working.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../core/backends/store/testing/postgres';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-shared-memories');

let database: TestDatabase;
/** The database's URL without its password, and the password for PGPASSWORD. */
let url: string;
let password: string;
let otherDataDir: string;

beforeEach(async () => {
  database = await createTestDatabase();
  const parsed = new URL(database.url);
  password = decodeURIComponent(parsed.password);
  parsed.password = '';
  url = parsed.toString();
  otherDataDir = mkdtempSync(join(tmpdir(), 'deepdesk-shared-memories-other-'));
});
afterEach(async () => {
  await database.drop();
  rmSync(otherDataDir, { recursive: true, force: true });
});

const withPassword = () => ({ PGPASSWORD: password });

function reviewOff(...dataDirs: string[]): void {
  for (const dir of dataDirs) writeFileSync(join(dir, 'settings.json'), JSON.stringify({ memories: { review: 'off' } }));
}

async function tools(dataDir: string, calls: unknown[]) {
  const r = await t.deepdesk(['tools', '--folder', t.folder, '--data-dir', dataDir, '--memories-store', url], withPassword(), calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { output: string }).output);
}

async function modifiedBy(path: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ modified_by: string | null }>('SELECT modified_by FROM deepdesk_store_files WHERE path = $1', [path]);
    return rows.rows[0]?.modified_by ?? null;
  } finally {
    await client.end();
  }
}

describe('--memories-store postgres://', () => {
  it("one person's memory is the other's: memories write/ls/cat across two data folders, password from PGPASSWORD", async () => {
    const wrote = await t.deepdesk(['memories', 'write', '/memories/team/style.md', '--memories-store', url], withPassword(), 'Tabs, not spaces.\n');
    expect(wrote.code, wrote.stderr).toBe(0);
    const listed = await t.deepdesk(['memories', 'ls', '--data-dir', otherDataDir, '--memories-store', url], withPassword());
    expect(listed.stdout).toBe('/memories/team/style.md\n');
    const read = await t.deepdesk(['memories', 'cat', '/memories/team/style.md', '--data-dir', otherDataDir, '--memories-store', url], withPassword());
    expect(read.stdout).toBe('Tabs, not spaces.\n');
    expect(await modifiedBy('/team/style.md')).toBe('user');
    // The local SQLite store was not used: without the flag, the same data folder has none.
    expect((await t.deepdesk(['memories', 'ls'])).stdout).toBe('');
  }, 90_000);

  it("the agent's memory is shared and records its thread as the writer", async () => {
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/memories/deploys.md', content: 'Deploys run on Fridays.\n' } }] }, { text: 'Noted.' });
    const r = await t.deepdesk(
      ['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', '--thread', 'thread-pg', '--memories-store', url, 'remember deploys'],
      withPassword(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(await tools(otherDataDir, [{ tool: 'read_file', args: { file_path: '/memories/deploys.md' } }])).toEqual([expect.stringContaining('Deploys run on Fridays.')]);
    expect(await modifiedBy('/deploys.md')).toBe('thread-pg');
  }, 90_000);

  it('several processes editing one memory at once lose no edit: each lands, or is refused for a re-read and then lands', async () => {
    // Every write active at once (a script's write is otherwise proposed, SPEC §25): what is shared is the subject here.
    reviewOff(t.dataDir, otherDataDir);
    const writers = ['a', 'b', 'c', 'd'];
    await tools(t.dataDir, [{ tool: 'write_file', args: { file_path: '/memories/board.md', content: writers.map((w) => `${w}: todo`).join('\n') + '\n' } }]);
    // Each process reads the board and edits its own line, all at once. An edit whose file
    // another process changed after the read is refused by the read-before-write guard (never
    // applied blindly); that writer reads again and retries, as the agent would.
    let pending = writers;
    const refusals: string[] = [];
    for (let round = 0; pending.length > 0 && round < 10; round++) {
      const outputs = await Promise.all(
        pending.map((w, i) =>
          tools(i % 2 === 0 ? t.dataDir : otherDataDir, [
            { tool: 'read_file', args: { file_path: '/memories/board.md' } },
            { tool: 'edit_file', args: { file_path: '/memories/board.md', old_string: `${w}: todo`, new_string: `${w}: done` } },
            // A file of its own, new, written at the same moment by each (first round only).
            ...(round === 0 ? [{ tool: 'write_file', args: { file_path: `/memories/by-${w}.md`, content: `${w}\n` } }] : []),
          ]),
        ),
      );
      const next: string[] = [];
      outputs.forEach((out, i) => {
        if (round === 0) expect(out[2]).not.toMatch(/^Error/);
        if (out[1]!.startsWith('Error')) {
          refusals.push(out[1]!);
          next.push(pending[i]!);
        }
      });
      pending = next;
    }
    expect(pending).toEqual([]);
    for (const refusal of refusals) expect(refusal).toMatch(/has changed since you last read it/);
    const board = await tools(otherDataDir, [{ tool: 'read_file', args: { file_path: '/memories/board.md' } }]);
    for (const w of writers) expect(board[0]).toContain(`${w}: done`);
    const listed = await t.deepdesk(['memories', 'ls', '--folder', t.folder, '--memories-store', url], withPassword());
    expect(listed.stdout).toBe(['/memories/board.md', ...writers.map((w) => `/memories/by-${w}.md`)].map((p) => `${p}\n`).join(''));
  }, 180_000);

  it('a database that is down is an Error naming it (never its password) while the folder tools work', async () => {
    reviewOff(t.dataDir);
    const closed = new URL(url);
    closed.port = '1';
    const r = await t.deepdesk(['tools', '--folder', t.folder, '--memories-store', closed.toString()], withPassword(), [
      JSON.stringify({ tool: 'write_file', args: { file_path: '/memories/x.md', content: 'x' } }),
      JSON.stringify({ tool: 'write_file', args: { file_path: '/local.md', content: 'here\n' } }),
      JSON.stringify({ tool: 'read_file', args: { file_path: '/local.md' } }),
    ].join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
    const [memory, local, read] = r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { output: string }).output);
    expect(memory).toMatch(/^Error: .*memories store postgres:\/\/.*:1\/.* is unreachable/);
    expect(r.stdout + r.stderr).not.toContain(password);
    expect(local).not.toMatch(/^Error/);
    expect(read).toContain('here');
  }, 90_000);
});
