// A scripted Gemini server for tests: each POST /v1beta/models/{model}:streamGenerateContent?alt=sse
// takes the next step of the script and streams it as the Gemini API does (one SSE event a part,
// the finish reason and usage on the last), and records what the client sent.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';
import { readBody } from './scripted-server';

/** A part of a Gemini `content` as the API writes it. */
export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string };

export type GeminiStep =
  | { parts: GeminiPart[]; finishReason?: string; usage?: { promptTokenCount: number; candidatesTokenCount: number; cachedContentTokenCount?: number; thoughtsTokenCount?: number } }
  | { error: { status: number; message: string } }
  | ((request: GeminiRequest) => GeminiStep);

/** One request as the server received it. */
export interface GeminiRequest {
  model: string;
  /** The parsed body: contents, systemInstruction, tools, generationConfig… */
  body: GeminiRequestBody;
  apiKey: string | undefined;
}

export interface GeminiRequestBody {
  contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  [key: string]: unknown;
}

export interface ScriptedGeminiServer {
  /** Base URL including /v1beta, for `--base-url`. */
  url: string;
  push(...steps: GeminiStep[]): void;
  requests: GeminiRequest[];
  close(): Promise<void>;
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/;
const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL' };

export async function startScriptedGeminiServer(script: GeminiStep[] = []): Promise<ScriptedGeminiServer> {
  const queue = [...script];
  const requests: GeminiRequest[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => sendError(res, 500, `scripted gemini server failure: ${String(err)}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || route === null || url.searchParams.get('alt') !== 'sse') {
      sendError(res, 404, `Unknown route ${req.method} ${req.url}`);
      return;
    }
    const body = JSON.parse(await readBody(req)) as GeminiRequestBody;
    const key = req.headers['x-goog-api-key'];
    const request: GeminiRequest = { model: decodeURIComponent(route[1]!), body, apiKey: typeof key === 'string' ? key : undefined };
    requests.push(request);

    let step = queue.shift();
    while (typeof step === 'function') step = step(request);
    if (step === undefined) {
      sendError(res, 500, 'scripted gemini server: script exhausted');
      return;
    }
    if ('error' in step) {
      sendError(res, step.error.status, step.error.message);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const usage = step.usage ?? { promptTokenCount: Math.ceil(JSON.stringify(body.contents).length / 4), candidatesTokenCount: 5 };
    const finishReason = step.finishReason ?? 'STOP';
    const parts = step.parts.length > 0 ? step.parts : [{ text: '' }];
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [part] }, index: 0, ...(last ? { finishReason } : {}) }],
        ...(last ? { usageMetadata: { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount } } : {}),
        modelVersion: request.model,
      };
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    });
    res.end();
  }

  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1beta`,
    push: (...steps) => void queue.push(...steps),
    requests,
    close,
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }));
}
