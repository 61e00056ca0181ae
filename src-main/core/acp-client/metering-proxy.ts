// The metering proxy on an external agent's model endpoint (SPEC §22): the agent's base URL
// points at a port of its sandbox's loopback, forwarded to this proxy's Unix socket; each
// request goes on to the real endpoint as it is (the person's key put in here, never in the
// agent's environment), and each response's own usage — Anthropic Messages, OpenAI Responses
// or Gemini, streamed or not — becomes one call for the ledger, naming the agent. With a
// budget, calls go one at a time, and once the spend reached the budget every further call is
// refused and `onBudget` is told: the spend stays within the budget plus one call.
import { rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { makeRunFolder } from '../sandbox/run-folders';

export interface MeteredUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface MeteredCall {
  at: string;
  path: string;
  status: number;
  durationMs: number;
  /** The response's own usage; undefined where it reported none (an error, a count). */
  usage?: MeteredUsage;
  /** Its cost, where the model's price is known. */
  costUsd?: number;
}

export interface MeteringProxyOptions {
  /** The real endpoint's origin and base path (`https://api.anthropic.com`, `http://127.0.0.1:PORT/v1`): the agent's paths are appended to it after the base the agent was given. */
  upstream: string;
  /** Headers put on every request upstream (the person's key), replacing the agent's. */
  upstreamHeaders?: Record<string, string>;
  /** Each call, when its response has ended. */
  onCall(call: MeteredCall): void;
  /** A call's cost from its usage, where known. */
  price?(usage: MeteredUsage): number | undefined;
  /** With a budget: the spend before this proxy started (the thread's), and the budget. */
  budget?: { limitUsd: number; spentUsd: number };
  /** The budget was reached: called once, when the first call is refused. */
  onBudget?(): void;
  /**
   * A budget shared with other threads (a candidates' set, SPEC §21): each call holds its estimate
   * there before it is let through (refused: the reason, and the call is not made); the hold is
   * spent with the call's cost when its response ends, or let go when it reported no usage.
   */
  hold?(call: { path: string; body: Buffer }): CallHold | { refused: string };
}

/** A call's place in a shared budget, from before it goes upstream until its response ended. */
export interface CallHold {
  spend(usage: MeteredUsage, costUsd: number | undefined): void;
  release(): void;
}

export interface MeteringProxy {
  /** The Unix socket (in a `deepdesk-proxy-` run folder, which other sandboxes hide: core/sandbox/run-folders.ts). */
  readonly socket: string;
  /** Spent through this proxy plus the spend before. */
  spentUsd(): number;
  /** Calls refused at the budget. */
  refused(): number;
  close(): Promise<void>;
}

/** The usage in one parsed JSON value of any of the three shapes, merged into `into`. */
export function readUsage(value: unknown, into: Partial<MeteredUsage>): void {
  if (typeof value !== 'object' || value === null) return;
  const v = value as Record<string, unknown>;
  // Anthropic: message_start carries the message (model, usage); message_delta the output count.
  if (v.type === 'message_start' && typeof v.message === 'object' && v.message !== null) {
    readUsage(v.message, into);
    return;
  }
  // OpenAI Responses: response.completed (and .incomplete/.failed) carry the response.
  if (typeof v.type === 'string' && v.type.startsWith('response.') && typeof v.response === 'object' && v.response !== null) {
    readUsage(v.response, into);
    return;
  }
  if (typeof v.model === 'string') into.model = v.model;
  if (typeof v.modelVersion === 'string') into.model = v.modelVersion;
  const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const usage = v.usage;
  if (typeof usage === 'object' && usage !== null) {
    const u = usage as Record<string, unknown>;
    const details = (u.input_tokens_details ?? {}) as Record<string, unknown>;
    const openAiCached = num(details.cached_tokens);
    if (num(u.input_tokens) !== undefined) {
      // Responses counts cached tokens inside input_tokens; Messages apart from it.
      into.inputTokens = openAiCached !== undefined ? num(u.input_tokens)! : num(u.input_tokens)! + (num(u.cache_read_input_tokens) ?? 0) + (num(u.cache_creation_input_tokens) ?? 0);
    }
    if (num(u.output_tokens) !== undefined) into.outputTokens = num(u.output_tokens);
    if (openAiCached !== undefined) into.cacheReadTokens = openAiCached;
    if (num(u.cache_read_input_tokens) !== undefined) into.cacheReadTokens = num(u.cache_read_input_tokens);
    if (num(u.cache_creation_input_tokens) !== undefined) into.cacheWriteTokens = num(u.cache_creation_input_tokens);
  }
  const gemini = v.usageMetadata;
  if (typeof gemini === 'object' && gemini !== null) {
    const g = gemini as Record<string, unknown>;
    if (num(g.promptTokenCount) !== undefined) into.inputTokens = num(g.promptTokenCount);
    const out = (num(g.candidatesTokenCount) ?? 0) + (num(g.thoughtsTokenCount) ?? 0);
    if (num(g.candidatesTokenCount) !== undefined || num(g.thoughtsTokenCount) !== undefined) into.outputTokens = out;
    if (num(g.cachedContentTokenCount) !== undefined) into.cacheReadTokens = num(g.cachedContentTokenCount);
  }
}

/** The usage of a whole response body (SSE `data:` lines or one JSON value); undefined when it reported none. */
export function usageOfBody(body: string): MeteredUsage | undefined {
  const into: Partial<MeteredUsage> = {};
  const values: unknown[] = [];
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      values.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    } catch {
      // Not one JSON value: read as SSE below.
    }
  }
  if (values.length === 0) {
    for (const line of body.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        values.push(JSON.parse(line.slice(5).trim()));
      } catch {
        // `[DONE]` and the like.
      }
    }
  }
  for (const value of values) readUsage(value, into);
  if (into.inputTokens === undefined && into.outputTokens === undefined) return undefined;
  return { model: into.model ?? 'unknown', inputTokens: into.inputTokens ?? 0, outputTokens: into.outputTokens ?? 0, cacheReadTokens: into.cacheReadTokens ?? 0, cacheWriteTokens: into.cacheWriteTokens ?? 0 };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const MAX_METERED_BODY = 64 * 1024 * 1024;

export async function startMeteringProxy(options: MeteringProxyOptions): Promise<MeteringProxy> {
  // Named after this process: one SIGKILLed leaves it to the next process's sweep.
  const dir = makeRunFolder('deepdesk-proxy-');
  const socket = join(dir, 'meter.sock');
  const upstream = new URL(options.upstream);
  const basePath = upstream.pathname.replace(/\/$/, '');
  let spent = options.budget?.spentUsd ?? 0;
  let refused = 0;
  let told = false;
  let queue: Promise<void> = Promise.resolve();

  const reachedBudget = (): boolean => options.budget !== undefined && spent >= options.budget.limitUsd;

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, held?: CallHold): Promise<void> =>
    new Promise<void>((resolve) => {
      let settled = false;
      const done = (usage?: MeteredUsage, costUsd?: number): void => {
        if (settled) return;
        settled = true;
        if (usage !== undefined) held?.spend(usage, costUsd);
        else held?.release();
        resolve();
      };
      const started = Date.now();
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
      // The agent's own placeholder key never goes upstream: the person's, where given.
      for (const [name, value] of Object.entries(options.upstreamHeaders ?? {})) headers[name.toLowerCase()] = value;
      headers['content-length'] = String(body.length);
      // The agent was given `http://127.0.0.1:PORT` (its base); its path goes after the upstream's base path.
      const path = `${basePath}${req.url ?? '/'}`;
      const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
      const up = send({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port || undefined, method: req.method, path, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          if (size < MAX_METERED_BODY) chunks.push(chunk);
          size += chunk.length;
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          const usage = usageOfBody(Buffer.concat(chunks).toString('utf8'));
          const costUsd = usage ? options.price?.(usage) : undefined;
          if (costUsd !== undefined) spent += costUsd;
          options.onCall({ at: new Date(started).toISOString(), path: req.url ?? '/', status: answer.statusCode ?? 0, durationMs: Date.now() - started, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) });
          done(usage, costUsd);
        });
        answer.on('error', () => {
          res.destroy();
          done();
        });
      });
      up.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Deepdesk's metering proxy could not reach the model: ${err.message}` } }));
        done();
      });
      res.on('close', () => up.destroy());
      up.end(body);
    });

  const refuse = (res: ServerResponse, why = "this thread's budget is spent; no further model calls"): void => {
    refused++;
    if (!told) {
      told = true;
      options.onBudget?.();
    }
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '86400' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'budget_exceeded', code: 'budget_exceeded', message: `Deepdesk: ${why}` } }));
  };

  /** Through the shared budget first (where there is one): held, or refused before it starts. */
  const pass = (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> | void => {
    const held = options.hold?.({ path: req.url ?? '/', body });
    if (held !== undefined && 'refused' in held) return refuse(res, held.refused);
    return forward(req, res, body, held);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!options.budget) {
        void pass(req, res, body);
        return;
      }
      // With a budget, one call at a time: each is let through only while the spend is under it.
      queue = queue.then(() => (reachedBudget() ? refuse(res) : pass(req, res, body)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  return {
    socket,
    spentUsd: () => spent,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
