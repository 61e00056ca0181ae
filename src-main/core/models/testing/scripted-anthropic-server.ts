// A scripted stand-in for api.anthropic.com: records each request and answers with the next
// reply, in the Messages API streaming format (message_start / content_block_* / message_delta /
// message_stop), so tests see what the real @ai-sdk/anthropic client sends.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from './loopback';

export type AnthropicReply = { status: number; json: unknown; headers?: Record<string, string> } | { sse: Array<Record<string, unknown>> };

/** A reply, or one chosen from the request's body (a real agent's side calls come in any order). */
export type AnthropicScript = AnthropicReply | ((body: Record<string, unknown>) => AnthropicReply);

export type AnthropicBlock = { text: string } | { tool: string; id: string; json: string[] } | { thinking: string; signature: string };

export interface ScriptedAnthropicServer {
  /** Base URL including /v1. */
  url: string;
  /** The ids `GET /v1/models` lists (default one: claude-scripted). */
  models: string[];
  /** Parsed request bodies, in arrival order. */
  bodies: Array<Record<string, unknown>>;
  headers: IncomingHttpHeaders[];
  push(...replies: AnthropicScript[]): void;
  close(): Promise<void>;
}

export async function startScriptedAnthropicServer(replies: AnthropicScript[] = []): Promise<ScriptedAnthropicServer> {
  const queue = [...replies];
  const bodies: Array<Record<string, unknown>> = [];
  const headers: IncomingHttpHeaders[] = [];
  const models = ['claude-scripted'];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      headers.push(req.headers);
      if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: models.map((id) => ({ type: 'model', id })), has_more: false }));
        return;
      }
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      // Token counts are not scripted: a 404, which Claude Code tolerates.
      if (pathname === '/v1/messages/count_tokens') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not scripted' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      bodies.push(body);
      const next = pathname === '/v1/messages' ? queue.shift() : undefined;
      const reply = typeof next === 'function' ? next(body) : next;
      if (!reply) {
        res.writeHead(500, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `scripted anthropic server: no reply for ${req.url}` } }));
        return;
      }
      if ('json' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.json));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of reply.sse) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1`,
    models,
    bodies,
    headers,
    push: (...more) => void queue.push(...more),
    close,
  };
}

/** A streamed answer of these blocks (text and tool input split in pieces, thinking signed). */
export function anthropicMessageStream(blocks: AnthropicBlock[], stopReason: string): AnthropicReply {
  const sse: Array<Record<string, unknown>> = [
    {
      type: 'message_start',
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 1 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if ('text' in block) {
      sse.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of [block.text.slice(0, 3), block.text.slice(3)]) {
        sse.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else if ('thinking' in block) {
      sse.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      sse.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      sse.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else {
      sse.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.tool, input: {} } });
      for (const piece of block.json) sse.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    sse.push({ type: 'content_block_stop', index });
  });
  sse.push(
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 30 } },
    { type: 'message_stop' },
  );
  return { sse };
}
