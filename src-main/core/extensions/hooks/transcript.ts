// The thread as a JSONL transcript in Claude Code's layout (SPEC §11 `transcript_path`): one
// object a line — `{"type": "user"|"assistant", "message": {"role", "content": [...]},
// "uuid", "parentUuid", "sessionId", "timestamp", "cwd"}` with text, tool_use and
// tool_result blocks as Claude Code writes them — so a hook script that reads the last
// assistant message decides the same way. Written before a hook runs, in the data folder
// (0600 in a 0700 folder: outside the project, hidden from the sandbox), and only when the
// thread grew since the last write.

import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, ContentPart } from '../../models/types';
import { CLAUDE_CODE_NAMES } from '../../tools/claude-code-names';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown } | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface TranscriptWriter {
  /** Brings the thread's transcript up to date and gives its path. */
  write(threadId: string, messages: readonly ChatMessage[], cwd: string): string;
}

/** Where a data folder keeps the transcripts hooks read. */
export function transcriptsDir(dataDir: string): string {
  return join(dataDir, 'transcripts');
}

export function transcriptWriter(dir: string): TranscriptWriter {
  const written = new Map<string, string>();
  return {
    write(threadId, messages, cwd) {
      const file = join(dir, `${createHash('sha256').update(threadId).digest('hex').slice(0, 32)}.jsonl`);
      const stamp = `${messages.length}:${JSON.stringify(messages.at(-1) ?? null).length}`;
      if (written.get(file) === stamp) return file;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const text = transcriptLines(threadId, messages, cwd).join('\n');
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, text === '' ? '' : `${text}\n`, { mode: 0o600 });
      renameSync(temp, file);
      written.set(file, stamp);
      return file;
    },
  };
}

export function transcriptLines(sessionId: string, messages: readonly ChatMessage[], cwd: string): string[] {
  const lines: string[] = [];
  let parentUuid: string | null = null;
  const now = new Date().toISOString();
  messages.forEach((message, i) => {
    const uuid = createHash('sha256').update(`${sessionId}\0${i}`).digest('hex').slice(0, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const entry = (type: 'user' | 'assistant', content: Block[]): string => JSON.stringify({ type, message: { role: type, content }, uuid, parentUuid, sessionId, timestamp: now, cwd });
    if (message.role === 'assistant') {
      const blocks: Block[] = [];
      if (message.content !== '') blocks.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: CLAUDE_CODE_NAMES[call.name] ?? call.name, input: call.args ?? {} });
      lines.push(entry('assistant', blocks));
    } else if (message.role === 'tool') {
      lines.push(entry('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: textOf(message.content), ...(message.isError ? { is_error: true } : {}) }]));
    } else {
      lines.push(entry('user', [{ type: 'text', text: textOf(message.content) }]));
    }
    parentUuid = uuid;
  });
  return lines;
}

function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}
