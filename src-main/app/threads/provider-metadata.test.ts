// What a provider needs back on the next request (Gemini's thought signatures on calls and
// text, reasoning blocks) is stored by the loop with the assistant message, survives the
// thread store (SQLite), and is in the history the next request is built from after a
// restart (SPEC §12). The model is a fake that yields the events the adapter emits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, type AgentDefinition } from '../../core/agent/loop';
import { newThreadState, type AgentEvent } from '../../core/agent/types';
import { StateBackend } from '../../core/backends/store/state';
import { openDatabase } from '../../core/backends/store/store';
import type { ChatMessage, ChatModel, ModelEvent, ModelRequest } from '../../core/models/types';
import { ZERO_USAGE } from '../../core/models/types';
import { ReadGuard } from '../../core/tools/read-guard';
import { ThreadStore } from './thread-store';

let dir: string;
let db: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-provider-metadata-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A Gemini-like model: each request answers with the next scripted events; requests are kept as sent. */
function fakeModel(steps: ModelEvent[][]): ChatModel & { requests: ChatMessage[][] } {
  const requests: ChatMessage[][] = [];
  return {
    id: 'google:gemini-2.5-flash',
    provider: 'google',
    contextWindow: 1_048_576,
    requests,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      requests.push(structuredClone(request.messages));
      yield* steps.shift() ?? [{ type: 'text-delta', text: 'done' }, { type: 'finish', stopReason: 'stop', usage: ZERO_USAGE }];
    },
  };
}

const google = (value: Record<string, unknown>) => ({ google: value });

describe('provider metadata in the thread', () => {
  it('keeps reasoning, text metadata and call metadata through SQLite, and sends them on the next request after a restart', async () => {
    const model = fakeModel([
      [
        { type: 'reasoning-delta', text: 'I should list.' },
        { type: 'reasoning-part', reasoning: { text: 'I should list.', providerMetadata: google({ thoughtSignature: 'sig-r' }) } },
        { type: 'text-delta', text: 'Listing.' },
        { type: 'text-metadata', providerMetadata: google({ thoughtSignature: 'sig-t' }) },
        { type: 'tool-call', call: { id: 'c1', name: 'nothing_here', args: {}, argsText: '{}', providerMetadata: google({ thoughtSignature: 'sig-1' }) } },
        { type: 'finish', stopReason: 'tool-calls', usage: ZERO_USAGE },
      ],
      [{ type: 'text-delta', text: 'All done.' }, { type: 'finish', stopReason: 'stop', usage: ZERO_USAGE }],
    ]);
    const def: AgentDefinition = { model, backend: new StateBackend(), tools: [], middleware: [], systemPrompt: 'test' };
    const store = new ThreadStore(db);
    const state = newThreadState('t-meta');
    const options = { emit: (_e: AgentEvent) => undefined, persist: async () => store.save(state), guard: new ReadGuard() };
    expect((await runAgent(def, state, { role: 'user', content: 'list' }, options)).reason).toBe('completed');

    const expected = {
      role: 'assistant',
      content: 'Listing.',
      provider: 'google',
      reasoning: [{ text: 'I should list.', providerMetadata: google({ thoughtSignature: 'sig-r' }) }],
      textMetadata: google({ thoughtSignature: 'sig-t' }),
      toolCalls: [{ id: 'c1', name: 'nothing_here', providerMetadata: google({ thoughtSignature: 'sig-1' }) }],
    };
    expect(state.messages[1]).toMatchObject(expected);
    expect(state.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'All done.', provider: 'google' });
    expect(state.messages.at(-1)).not.toHaveProperty('reasoning');

    // A restart: a new store over the same database, the thread loaded, the run going on.
    db.close();
    db = openDatabase(join(dir, 'deepdesk.db'));
    const reloaded = new ThreadStore(db).load('t-meta');
    expect(reloaded.messages[1]).toMatchObject(expected);
    const again = fakeModel([]);
    await runAgent({ ...def, model: again }, reloaded, { role: 'user', content: 'and now?' }, { ...options, persist: async () => undefined });
    expect(again.requests[0]![1]).toMatchObject(expected);
  });

  it('keeps where older media left the model view (summarization), so a reloaded thread does not send them again', () => {
    const state = newThreadState('t-media');
    state.messages.push({ role: 'user', content: 'hi' });
    state.mediaDroppedBefore = 1;
    new ThreadStore(db).save(state);
    expect(new ThreadStore(db).load('t-media').mediaDroppedBefore).toBe(1);
  });
});
