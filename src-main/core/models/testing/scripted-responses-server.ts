// A scripted stand-in for OpenAI's Responses API (`POST /v1/responses`, streamed as SSE), as
// Codex speaks it: each request takes the next step (or one chosen from the request) and is
// answered with the event sequence the API sends — response.created, the output items (a
// message's text, a function call's arguments) added, their deltas and done events, then
// response.completed with the usage.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from './loopback';

export type ResponsesStep =
  | { text: string; usage?: { input: number; cached?: number; output: number } }
  | { functionCall: { name: string; arguments: string; callId: string }; usage?: { input: number; cached?: number; output: number } };

export type ResponsesScript = ResponsesStep | ((body: Record<string, unknown>) => ResponsesStep);

export interface ScriptedResponsesServer {
  /** Base URL including /v1. */
  url: string;
  bodies: Array<Record<string, unknown>>;
  headers: IncomingHttpHeaders[];
  push(...steps: ResponsesScript[]): void;
  close(): Promise<void>;
}

export async function startScriptedResponsesServer(script: ResponsesScript[] = []): Promise<ScriptedResponsesServer> {
  const queue = [...script];
  const bodies: Array<Record<string, unknown>> = [];
  const headers: IncomingHttpHeaders[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      headers.push(req.headers);
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && pathname === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [] }));
        return;
      }
      if (req.method !== 'POST' || pathname !== '/v1/responses') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${pathname}`, type: 'invalid_request_error' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      bodies.push(body);
      const next = queue.shift();
      const step = typeof next === 'function' ? next(body) : next;
      if (!step) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted responses server: script exhausted', type: 'server_error' } }));
        return;
      }
      const model = typeof body.model === 'string' ? body.model : 'gpt-5';
      const id = `resp_${++n}`;
      let seq = 0;
      const send = (type: string, data: Record<string, unknown>): void => {
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
      };
      const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send('response.created', { response: { ...base, status: 'in_progress', output: [] } });
      send('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
      let item: Record<string, unknown>;
      if ('text' in step) {
        const itemId = `msg_${n}`;
        send('response.output_item.added', { output_index: 0, item: { type: 'message', id: itemId, status: 'in_progress', role: 'assistant', content: [] } });
        send('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const piece of [step.text.slice(0, 3), step.text.slice(3)]) send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: piece });
        send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text: step.text });
        const part = { type: 'output_text', text: step.text, annotations: [] };
        send('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part });
        item = { type: 'message', id: itemId, status: 'completed', role: 'assistant', content: [part] };
      } else {
        const itemId = `fc_${n}`;
        const call = step.functionCall;
        send('response.output_item.added', { output_index: 0, item: { type: 'function_call', id: itemId, call_id: call.callId, name: call.name, arguments: '', status: 'in_progress' } });
        send('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: call.arguments });
        send('response.function_call_arguments.done', { item_id: itemId, output_index: 0, arguments: call.arguments });
        item = { type: 'function_call', id: itemId, call_id: call.callId, name: call.name, arguments: call.arguments, status: 'completed' };
      }
      send('response.output_item.done', { output_index: 0, item });
      const u = step.usage ?? { input: 120, cached: 20, output: 15 };
      send('response.completed', {
        response: {
          ...base,
          status: 'completed',
          output: [item],
          usage: { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached ?? 0 }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input + u.output },
        },
      });
      res.end();
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: `${origin}/v1`, bodies, headers, push: (...more) => void queue.push(...more), close };
}
