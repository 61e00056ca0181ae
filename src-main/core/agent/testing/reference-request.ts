// The reference of SPEC §20: the first request deepagents (the devDependency in
// node_modules/deepagents) sends for "hi" in a fresh folder with its defaults — createDeepAgent
// with a ChatOpenAI at the scripted OpenAI-compatible server and a FilesystemBackend on the
// folder — captured as it is sent and counted as Deepdesk counts its own (request-budget.ts).
// The same capture and count of Deepdesk's own first request is `wireRequestCost`.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChatMessage, ToolSpec } from '../../models/types';
import { startScriptedServer, type RecordedRequest } from '../../models/testing/scripted-server';
import { requestCost, type RequestCost } from '../request-budget';

/**
 * Measured with measureReferenceRequest() against deepagents 1.14.1: 8 tools (ls, read_file,
 * write_file, edit_file, delete, glob, grep, task) and no system prompt, with the prompt's
 * message. Measure again when the package changes (the print-request test does, and fails
 * when the figure no longer holds).
 */
export const REFERENCE_REQUEST = {
  version: '1.14.1',
  prompt: 'hi',
  tools: ['ls', 'read_file', 'write_file', 'edit_file', 'delete', 'glob', 'grep', 'task'],
  /** Its system prompt and tools. */
  base: 1835,
  total: 1840,
} as const;

/** A request as captured at the scripted server, counted as Deepdesk counts its own: each system message a part. */
export function wireRequestCost(request: RecordedRequest): RequestCost {
  const text = (content: unknown): string =>
    typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('') : '';
  const systemParts = request.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => ({ name: m.role, text: text(m.content) }));
  const messages = request.messages.filter((m) => m.role === 'user').map((m): ChatMessage => ({ role: 'user', content: text(m.content) }));
  if (messages.length + systemParts.length !== request.messages.length) throw new Error('only the first request of a thread (system and user messages) is counted here');
  const tools = (request.tools ?? []).map((t): ToolSpec => ({ name: t.function.name, description: t.function.description ?? '', parameters: (t.function.parameters ?? {}) as Record<string, unknown> }));
  return requestCost({ system: systemParts.map((p) => p.text).join('\n\n'), tools, messages }, systemParts);
}

/** The version of deepagents installed. */
export function referenceVersion(): string {
  const entry = createRequire(import.meta.url).resolve('deepagents');
  return (JSON.parse(readFileSync(join(dirname(dirname(entry)), 'package.json'), 'utf8')) as { version: string }).version;
}

/** What deepagents sends first for `prompt` in a fresh folder, counted (see the top of this file). */
export async function measureReferenceRequest(prompt: string = REFERENCE_REQUEST.prompt): Promise<{ version: string; cost: RequestCost; request: RecordedRequest }> {
  const [{ createDeepAgent, FilesystemBackend }, { ChatOpenAI }, { HumanMessage }] = await Promise.all([import('deepagents'), import('@langchain/openai'), import('@langchain/core/messages')]);
  const folder = mkdtempSync(join(tmpdir(), 'deepdesk-reference-'));
  const server = await startScriptedServer([{ text: 'Hello.' }]);
  try {
    const model = new ChatOpenAI({ model: 'scripted-model', apiKey: 'reference', configuration: { baseURL: server.url }, maxRetries: 0 });
    const agent = createDeepAgent({ model, backend: new FilesystemBackend({ rootDir: folder, virtualMode: true }) });
    await agent.invoke({ messages: [new HumanMessage(prompt)] });
    const request = server.requests[0];
    if (request === undefined) throw new Error('deepagents sent no request');
    return { version: referenceVersion(), cost: wireRequestCost(request), request };
  } finally {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
