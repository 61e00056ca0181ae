// Without a reviewer, sensitive writes inside the folder (SPEC §23 (5)) run as before and are
// marked in Changes; an ordinary write beside them is not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-sensitive');

describe('sensitive writes in Changes', () => {
  it('run without asking in edit mode and carry their mark; the ordinary write carries none', async () => {
    t.server.push(
      {
        toolCalls: [
          { name: 'write_file', args: { file_path: '/.github/workflows/ci.yml', content: 'on: push\n' } },
          { name: 'write_file', args: { file_path: '/notes.txt', content: 'one\n' } },
        ],
      },
      { text: 'Done.' },
    );
    const { call } = await t.open();
    await call('mode.set', { mode: 'edit' });
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'Set up CI' });
    await expect.poll(async () => (await call('checkpoints.changes', { threadId: thread.id })).files.length, { timeout: 60_000 }).toBe(2);
    const { files } = await call('checkpoints.changes', { threadId: thread.id });
    expect(readFileSync(join(t.folder, '.github/workflows/ci.yml'), 'utf8')).toBe('on: push\n');
    expect(files.find((f) => f.path === '/.github/workflows/ci.yml')?.sensitive).toEqual({ kind: 'ci', what: 'a CI definition (.github)' });
    expect(files.find((f) => f.path === '/notes.txt')?.sensitive).toBeUndefined();
  });
});
