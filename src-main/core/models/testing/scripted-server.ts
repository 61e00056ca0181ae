// A scripted OpenAI-compatible server for tests: each POST /v1/chat/completions takes the next
// step of the script and answers it in the real OpenAI wire format (SSE when stream: true).
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';

export interface ScriptUsage {
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
}

export interface ScriptToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (so it may be malformed JSON). */
  args: unknown;
  id?: string;
}

/** Streams a step's text in `chunkChars`-sized deltas at `chunksPerSecond`, paced by the clock. */
export interface ScriptPace {
  chunkChars: number;
  chunksPerSecond: number;
  /** The stream waits once `chars` characters are sent, until `until` settles: a test looks at a state the stream is surely still in. */
  holdAt?: { chars: number; until: Promise<unknown> };
}

export type ScriptStep =
  | { text: string; reasoning?: string; usage?: ScriptUsage; finishReason?: string; pace?: ScriptPace }
  | { toolCalls: ScriptToolCall[]; text?: string; reasoning?: string; usage?: ScriptUsage; finishReason?: string }
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  /** Sends the role chunk (and `text`, if any), then never finishes until the client goes away. */
  | { hang: true; text?: string }
  /** Sends the role chunk (and `text`, if any), then destroys the connection mid-stream. */
  | { disconnect: true; text?: string }
  | { delayMs: number; then: ScriptStep }
  | ((request: RecordedRequest) => ScriptStep | Promise<ScriptStep>);

type FinalStep = Exclude<ScriptStep, { delayMs: number } | ((request: RecordedRequest) => unknown)>;

/** The parsed JSON body of a chat completions request. */
export interface RecordedRequest {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string; [key: string]: unknown }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  [key: string]: unknown;
}

export interface ScriptedServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:PORT/v1. */
  url: string;
  push(...steps: ScriptStep[]): void;
  /** Bodies of the chat completion requests, in arrival order. */
  requests: RecordedRequest[];
  /** Headers of those requests, same order. */
  requestHeaders: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Model id listed by GET /v1/models and echoed in responses (default 'scripted-model'). */
  model?: string;
}

/** The text of the last user message of a request (string content, or its text parts joined). */
export function lastUserText(request: RecordedRequest): string {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  if (Array.isArray(user.content)) {
    return user.content
      .map((part: unknown) => (typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text ?? '') : ''))
      .join('');
  }
  return '';
}

export async function startScriptedServer(script: ScriptStep[] = [], options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const model = options.model ?? 'scripted-model';
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  let counter = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server failure: ${String(err)}`, type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'scripted' }] });
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, { error: { message: `Unknown route ${req.method} ${path}`, type: 'invalid_request_error' } });
      return;
    }
    const raw = await readBody(req);
    let body: RecordedRequest;
    try {
      body = JSON.parse(raw) as RecordedRequest;
    } catch {
      sendJson(res, 400, { error: { message: 'Request body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    requests.push(body);
    requestHeaders.push(req.headers);

    const next = queue.shift();
    if (next === undefined) {
      // Loud, and fast even through a retrying client (retry-after: 0).
      sendJson(res, 500, { error: { message: 'scripted server: script exhausted', type: 'script_exhausted' } }, { 'retry-after': '0' });
      return;
    }
    let step: ScriptStep = next;
    for (;;) {
      if (typeof step === 'function') step = await step(body);
      else if ('delayMs' in step) {
        const { delayMs, then } = step;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        step = then;
      } else break;
    }
    counter += 1;
    await answer(step, body, res, `chatcmpl-${counter}`);
  }

  async function answer(step: FinalStep, body: RecordedRequest, res: ServerResponse, id: string): Promise<void> {
    if ('error' in step) {
      const payload = step.error.body ?? { error: { message: `scripted error ${step.error.status}`, type: 'server_error', code: null } };
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      res.writeHead(step.error.status, { 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json', ...step.error.headers });
      res.end(text);
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    });

    if ('hang' in step || 'disconnect' in step) {
      if (body.stream !== true) {
        if ('disconnect' in step) res.destroy();
        // a hanging non-stream request simply never answers
        return;
      }
      startSse(res);
      sendEvent(res, chunk({ role: 'assistant', content: '' }));
      if (step.text) sendEvent(res, chunk({ content: step.text }));
      if ('disconnect' in step) setImmediate(() => res.destroy());
      return;
    }

    const text = step.text ?? '';
    const toolCalls = 'toolCalls' in step ? step.toolCalls.map((call, index) => normalizeCall(call, id, index)) : [];
    const finishReason = step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const usage = usageFor(step.usage, body, text, toolCalls);

    if (body.stream !== true) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text === '' && toolCalls.length > 0 ? null : text,
              ...(step.reasoning ? { reasoning_content: step.reasoning } : {}),
              ...(toolCalls.length > 0
                ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
                : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return;
    }

    startSse(res);
    sendEvent(res, chunk({ role: 'assistant', content: '' }));
    for (const piece of split(step.reasoning ?? '')) sendEvent(res, chunk({ reasoning_content: piece }));
    if ('pace' in step && step.pace) {
      if (!(await sendPaced(res, text, step.pace, (piece) => chunk({ content: piece })))) return;
    } else for (const piece of split(text)) sendEvent(res, chunk({ content: piece }));
    toolCalls.forEach((call, index) => {
      sendEvent(res, chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of split(call.arguments)) sendEvent(res, chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    sendEvent(res, chunk({}, finishReason));
    if (includeUsage) sendEvent(res, { id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices: [], usage });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1`,
    push: (...steps) => void queue.push(...steps),
    requests,
    requestHeaders,
    close,
  };
}

function normalizeCall(call: ScriptToolCall, responseId: string, index: number): { id: string; name: string; arguments: string } {
  return {
    id: call.id ?? `call_${responseId.replace(/\W/g, '')}_${index}`,
    name: call.name,
    arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}),
  };
}

function usageFor(override: ScriptUsage | undefined, body: RecordedRequest, text: string, calls: Array<{ arguments: string }>) {
  const promptTokens = override?.promptTokens ?? Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completionTokens = override?.completionTokens ?? Math.ceil((text.length + calls.reduce((n, call) => n + call.arguments.length, 0)) / 4);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: override?.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/** Sends `text` in paced deltas; false when the client went away meanwhile. */
async function sendPaced(res: ServerResponse, text: string, pace: ScriptPace, delta: (piece: string) => unknown): Promise<boolean> {
  const chars = Array.from(text);
  const size = Math.max(1, Math.floor(pace.chunkChars));
  let start = performance.now();
  for (let i = 0, n = 0; i < chars.length; i += size, n++) {
    if (pace.holdAt !== undefined && i >= pace.holdAt.chars && i - size < pace.holdAt.chars) {
      const held = performance.now();
      await pace.holdAt.until;
      start += performance.now() - held;
    }
    const wait = start + (n * 1000) / pace.chunksPerSecond - performance.now();
    // Timers are coarse: sleep only when a chunk is more than a tick ahead, else send the ones due.
    if (wait > 2) await new Promise((resolve) => setTimeout(resolve, wait));
    if (res.destroyed) return false;
    sendEvent(res, delta(chars.slice(i, i + size).join('')));
  }
  return true;
}

/** Splits text into three pieces or so, on code point boundaries, so clients must join deltas. */
function split(text: string): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.max(1, Math.ceil(chars.length / 3));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

function sendEvent(res: ServerResponse, data: unknown): void {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function sendJson(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(data));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
