// A realistic 300-message thread (a user asking, the agent reading and editing files) in
// Deepdesk's message shape, and the same conversation for LangChain (deepagents).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newThreadState } from '../../src-main/core/agent/types';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import type { ChatMessage } from '../../src-main/core/models/types';
import { ThreadStore } from '../../src-main/app/threads/thread-store';
import { generateText, makeRng, sentence, word } from './text-gen';

export const THREAD_MESSAGES = 300;

/** Fresh objects on every call, so no per-message cache carries over between runs. */
export function threadMessages(count = THREAD_MESSAGES): ChatMessage[] {
  const rng = makeRng(300);
  const out: ChatMessage[] = [{ role: 'user', content: `${sentence(rng, 12, 30)} ${sentence(rng, 12, 30)}` }];
  let n = 0;
  while (out.length < count - 1) {
    if (out.length % 40 === 39) {
      out.push({ role: 'assistant', content: generateText(rng, 'md', 600) });
      out.push({ role: 'user', content: sentence(rng, 8, 20) });
      continue;
    }
    const id = `call_prefill_${n++}`;
    const file = `/src/${word(rng)}/${word(rng)}-${n}.ts`;
    const argsText = JSON.stringify({ file_path: file, offset: 0, limit: 100 });
    out.push({ role: 'assistant', content: rng() < 0.3 ? sentence(rng) : '', toolCalls: [{ id, name: 'read_file', args: JSON.parse(argsText) as unknown, argsText }] });
    const body = generateText(rng, 'ts', 600 + Math.floor(rng() * 1_800))
      .split('\n')
      .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
      .join('\n');
    out.push({ role: 'tool', toolCallId: id, toolName: 'read_file', content: body });
  }
  while (out.length < count) out.push({ role: 'user', content: sentence(rng) });
  return out.slice(0, count);
}

/** A new data folder holding these threads of `folder` (each titled by its id), as a person's after a while. */
export function dataWithThreads(folder: string, threads: ReadonlyArray<{ id: string; messages: ChatMessage[] }>): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-threads-'));
  const db = openDatabase(path.join(dataDir, 'deepdesk.db'));
  try {
    const store = new ThreadStore(db);
    db.transaction(() => {
      for (const { id, messages } of threads) {
        const state = newThreadState(id);
        state.messages = messages;
        store.save(state, { folder, title: id });
      }
    })();
  } finally {
    db.close();
  }
  return dataDir;
}
