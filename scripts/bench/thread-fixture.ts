// A realistic 300-message thread (a user asking, the agent reading and editing files) in
// Deepdesk's message shape, and the same conversation for LangChain (deepagents).

import type { ChatMessage } from '../../src-main/core/models/types';
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
