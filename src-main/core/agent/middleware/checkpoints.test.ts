// The checkpoints middleware inside the real agent loop: steps of the agent and of its
// subagents become checkpoints of the thread and of the user message they answer.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointHistory } from '../../checkpoints/history';
import { recorderFor } from '../../checkpoints/recorder';
import { CheckpointStore } from '../../checkpoints/store';
import type { ScriptStep } from '../../models/testing/scripted-server';
import { createHarness, textOf, type Harness } from '../agent-harness.test-support';

let h: Harness | undefined;
let dataDir: string | undefined;
let store: CheckpointStore | undefined;
afterEach(async () => {
  await h?.dispose();
  store?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  h = undefined;
  store = undefined;
  dataDir = undefined;
});

describe('checkpoints middleware', () => {
  it('records the agent’s and its subagents’ steps under the thread and the user message, and restores per message', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-cp-agent-'));
    const s = (store = CheckpointStore.open(dataDir));
    const responder: ScriptStep = (req) => {
      const system = textOf(req.messages[0]!.content);
      const users = req.messages.filter((m) => m.role === 'user');
      const last = req.messages.at(-1)!;
      if (system.includes('You are a subagent')) {
        if (last.role === 'tool') return { text: 'subagent wrote it' };
        return { toolCalls: [{ name: 'write_file', args: { file_path: '/sub/from-subagent.txt', content: 'sub\n' } }] };
      }
      if (last.role === 'tool') return { text: 'done' };
      if (users.length === 1) {
        return {
          toolCalls: [
            { name: 'write_file', args: { file_path: '/first.txt', content: 'one\n' } },
            { name: 'task', args: { description: 'write the sub file', subagent_type: 'general-purpose' } },
            { name: 'write_file', args: { file_path: '/memories/note.md', content: 'not the folder\n' } },
          ],
        };
      }
      return { toolCalls: [{ name: 'execute', args: { command: 'printf "two\\n" > second.txt && printf "changed\\n" > first.txt' } }] };
    };
    // Redirections into files always ask, even under allow-all rules.
    h = await createHarness({ script: Array.from({ length: 8 }, () => responder), decisions: [{ type: 'approve' }], checkpoints: (folder) => recorderFor(s, folder) });
    await h.run('First request\nwith details');
    await h.run('Second request');
    const history = new CheckpointHistory(s);
    const list = history.list('thread-1');
    expect(list.map((c) => [c.messageIndex, c.messageLine, c.tool])).toEqual(
      expect.arrayContaining([
        [0, 'First request', 'write_file'],
        [0, 'First request', 'write_file'],
        [h.state.messages.findLastIndex((m) => m.role === 'user'), 'Second request', 'execute'],
      ]),
    );
    expect(list).toHaveLength(3);
    const events = h.events.filter((e) => e.type === 'checkpoint');
    expect(events.map((e) => (e.type === 'checkpoint' ? e.files : []))).toEqual(
      expect.arrayContaining([
        [{ path: '/first.txt', status: 'added' }],
        [
          { path: '/sub', status: 'added' },
          { path: '/sub/from-subagent.txt', status: 'added' },
        ],
      ]),
    );
    // The subagent's checkpoint event streams under its task call, in the parent thread.
    const subEvent = events.find((e) => e.type === 'checkpoint' && e.files.some((f) => f.path === '/sub/from-subagent.txt'))!;
    expect(subEvent.parentToolCallId).toBeDefined();
    expect(subEvent.threadId).toBe('thread-1');

    const second = h.state.messages.findLastIndex((m) => m.role === 'user');
    // This workspace runs commands outside a sandbox: their changes cannot be told from the person's, so a restore asks.
    const asked = await history.restoreToMessage('thread-1', second, 'Second request', 'ask');
    expect(asked?.applied).toBe(false);
    const r = await history.restoreToMessage('thread-1', second, 'Second request', 'take-restore');
    expect(r?.restored.sort()).toEqual(['first.txt', 'second.txt']);
    expect(readFileSync(join(h.ws.folder, 'first.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(h.ws.folder, 'second.txt'))).toBe(false);
    await history.restoreToMessage('thread-1', 0, 'First request', 'take-restore');
    expect(existsSync(join(h.ws.folder, 'first.txt'))).toBe(false);
    expect(existsSync(join(h.ws.folder, 'sub'))).toBe(false);
  });
});
