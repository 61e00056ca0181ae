// Issue 66: the agent host commits a run's writes without an fsync each and forces them to the
// disk once, before the run's end is told (core/backends/store/store-db.ts DeferredSync). A
// finished `deepdesk run` must still hold: its thread, both messages, its run record and the
// ledger's row are there when the host is killed with SIGKILL the moment the command returns.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';
import { alive, hostPid, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-run-durable');

describe('a finished deepdesk run survives its host killed with SIGKILL', () => {
  it('keeps the thread, its messages, its run record and its ledger rows of warm runs', async () => {
    const run = async (words: string) => {
      t.server.push({ text: `answer to ${words}`, usage: { promptTokens: 11, completionTokens: 7 } });
      const result = await t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--json', words]);
      expect(result.code, result.stderr).toBe(0);
      return result;
    };
    // The first run starts the host and warms the folder's session; the second is a warm run.
    await run('first');
    const pid = hostPid(t.dataDir);
    expect(pid).toBeDefined();
    const warm = await run('second');
    // Killed the moment the command returned: nothing the host does after the run's end is waited for.
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => !alive(pid!), 10_000, 'the host to be gone');
    expect(warm.stdout).toContain('answer to second');

    const db = new Database(join(t.dataDir, 'deepdesk.db'), { readonly: true });
    try {
      const threads = db.prepare<[], { id: string; title: string }>('SELECT id, title FROM threads ORDER BY created_at').all();
      expect(threads.map((thread) => thread.title)).toEqual(['first', 'second']);
      for (const [i, thread] of threads.entries()) {
        const words = i === 0 ? 'first' : 'second';
        const messages = db
          .prepare<[string], { message_json: string }>('SELECT message_json FROM thread_messages WHERE thread_id = ? ORDER BY seq')
          .all(thread.id)
          .map((row) => JSON.parse(row.message_json) as { role: string; content: unknown });
        expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
        expect(JSON.stringify(messages[1]!.content)).toContain(`answer to ${words}`);
        const record = db.prepare<[string], { state: string; ended_at: string | null }>('SELECT state, ended_at FROM host_runs WHERE thread_id = ?').get(thread.id);
        expect(record?.state).toBe('done');
        expect(record?.ended_at).not.toBeNull();
        const calls = db.prepare<[string], { input_tokens: number; output_tokens: number }>('SELECT input_tokens, output_tokens FROM model_calls WHERE thread_id = ?').all(thread.id);
        expect(calls).toEqual([{ input_tokens: 11, output_tokens: 7 }]);
      }
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 120_000);
});
