// `deepdesk checkpoints restore` is told to the agent: the thread's next request (here a
// `deepdesk run --thread ID` in another process) carries a note listing what was restored,
// and after an undo (restoring the restore) a note of that too; each note once.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-notes-cli');
const deepdesk = t.deepdesk;

const run = (prompt: string) =>
  deepdesk(['run', '--thread', 'notes-thread', '--approve', 'auto', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, prompt]);

function textOf(message: RecordedRequest['messages'][number]): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function restoreNotes(request: RecordedRequest): string[] {
  return request.messages.filter((m) => m.role === 'user' && textOf(m).includes('<system-reminder>')).map(textOf);
}

async function lastCheckpoint(): Promise<string> {
  const ls = await deepdesk(['checkpoints', 'ls', '--thread', 'notes-thread']);
  expect(ls.code).toBe(0);
  return ls.stdout.trim().split('\n').at(-1)!.split('  ')[0]!;
}

describe('deepdesk checkpoints restore, then deepdesk run --thread', () => {
  it('the next request of the thread carries a note of the restore, then of its undo, each once', async () => {
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'hello\n' } }] },
      { text: 'Wrote notes.' },
      { text: 'The notes are gone, noted.' },
      { text: 'The notes are back, noted.' },
      { text: 'Nothing new.' },
    );
    expect((await run('Create notes\nplease')).code).toBe(0);
    const checkpoint = await lastCheckpoint();

    const restored = await deepdesk(['checkpoints', 'restore', checkpoint]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^Restored 1 files$/m);
    expect(existsSync(join(t.folder, 'notes.txt'))).toBe(false);

    expect((await run('What now?')).code).toBe(0);
    const [note, ...others] = restoreNotes(t.server.requests.at(-1)!);
    expect(others).toEqual([]);
    expect(note).toContain("to before the user message 'Create notes'");
    expect(note).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
    expect(note).toMatch(/\/notes\.txt: deleted/);

    const undo = await deepdesk(['checkpoints', 'restore', await lastCheckpoint()]);
    expect(undo.code).toBe(0);
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect((await run('And now?')).code).toBe(0);
    const afterUndo = restoreNotes(t.server.requests.at(-1)!);
    expect(afterUndo).toHaveLength(2);
    expect(afterUndo[0]).toBe(note);
    expect(afterUndo[1]).toMatch(/undid the restore/i);
    expect(afterUndo[1]).toMatch(/\/notes\.txt: re-created/);

    // Nothing restored since: no new note.
    expect((await run('Anything else?')).code).toBe(0);
    expect(restoreNotes(t.server.requests.at(-1)!)).toHaveLength(2);
  });
});
