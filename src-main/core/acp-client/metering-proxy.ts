// The metering proxy on an external agent's model endpoint (SPEC §22): the agent's base URL
// points at a port of its sandbox's loopback, forwarded to this proxy's Unix socket; each
// request goes on to the real endpoint (the person's key put in here, never in the agent's),
// asked for an uncompressed answer (one compressed anyway is decoded). Each model call is one
// call of the metering point (core/telemetry/metering.ts), its usage read from the response —
// Anthropic Messages, OpenAI Responses or Gemini, streamed or not — and held from before it goes
// at its worst case (its prompt, counted from the request's size, and the most it may answer: its
// max_tokens, else the model's) which a call cut short before any usage, or unreadable, keeps; cut
// after a usage, it settles at the largest the stream had reported (SPEC §26). With a budget
// (its own or a shared one), calls go one at a time, and a call whose worst case would take the
// spend past the budget is refused and `onBudget` is told: the spend stays within the budget
// plus one call.
import { rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import * as zlib from 'node:zlib';
import { QuotaError } from '../models/errors';
import { maxOutputTokensFor } from '../models/model-info';
import { quotaAnswer } from '../models/quota-answer';
import { quotaTripped, tripQuota } from '../models/quota-breaker';
import { ZERO_USAGE, type ProviderName, type Usage } from '../models/types';
import { makeSocketFolder } from '../sandbox/run-folders';
import { meterModelCall, type CallHold, type MeteredModelCall } from '../telemetry/metering';
import { NOOP_RUN, safely, type RunObserver } from '../telemetry/observer';

export type MeteredUsage = Usage & { model: string };

export interface MeteringProxyOptions {
  /** The real endpoint's origin and base path (`https://api.anthropic.com`, `http://127.0.0.1:PORT/v1`): the agent's paths are appended to it after the base the agent was given. */
  upstream: string;
  /** Headers put on every request upstream (the person's key), replacing the agent's. */
  upstreamHeaders?: Record<string, string>;
  /** Whose calls these are: the agent (its ledger rows and spans name it) and its model's provider. */
  agent: { name: string; provider: ProviderName };
  /** Where each call is observed (the agent's turn under way: the ledger, traces); default nobody listens. */
  observer?(): Pick<RunObserver, 'modelCall'>;
  /** A call's cost from its usage, where known. */
  price?(usage: MeteredUsage): number | undefined;
  /** The budget refused a call: called once, when the first call is refused. */
  onBudget?(): void;
  /** The provider answered that the account is out of quota (or was already tripped): its breaker is tripped (SPEC §26). */
  onQuota?(): void;
  /**
   * The budget tree (SPEC §26): each call holds its worst case there before it is let through
   * (waiting while paused at a cap, until `signal` ends with the proxy; refused: the reason, and
   * the call is not made); the hold is spent with the call's cost when its usage is read, kept
   * when it was cut short before any usage, let go when it failed. With it, calls go one at a time.
   */
  hold?(call: { model: string; promptTokens: number; maxOutputTokens: number }, signal: AbortSignal): Promise<CallHold | { refused: string }>;
  /** A call answered: the model that answered it (as the answer names it, else the request), whether it offered tools (the agent's own work, not a side call's title), and its usage where it was read. */
  onModel?(call: { model: string; tools: boolean; usage?: Usage }): void;
}

export interface MeteringProxy {
  /** The Unix socket (in a `deepdesk-proxy-` run folder, which other sandboxes hide: core/sandbox/run-folders.ts). */
  readonly socket: string;
  /** Calls refused at the budget. */
  refused(): number;
  close(): Promise<void>;
}

/** The usage in one parsed JSON value of any of the three shapes, merged into `into`. */
function readUsage(value: unknown, into: Partial<MeteredUsage>): void {
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
  // One JSON value (or an array of them, Gemini's unstreamed answer), else SSE `data:` lines (`[DONE]` and the like skipped).
  const whole = /^\s*[[{]/.test(body) ? safely(() => JSON.parse(body) as unknown, undefined) : undefined;
  const values = whole !== undefined ? [whole].flat() : body.split('\n').flatMap((line) => (line.startsWith('data:') ? [safely(() => JSON.parse(line.slice(5)) as unknown, undefined)] : []));
  for (const value of values) readUsage(value, into);
  if (into.inputTokens === undefined && into.outputTokens === undefined) return undefined;
  return { model: into.model ?? 'unknown', inputTokens: into.inputTokens ?? 0, outputTokens: into.outputTokens ?? 0, cacheReadTokens: into.cacheReadTokens ?? 0, cacheWriteTokens: into.cacheWriteTokens ?? 0 };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const MAX_METERED_BODY = 64 * 1024 * 1024;
/** Requests that count tokens: not billed, not metered (every other POST is a model call). */
const NOT_A_CALL = /count_tokens|:countTokens|\/input_tokens/;
/** Decoded as far as it goes: an answer cut short is read up to where it broke off. */
const FLUSHED = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
// Read off the namespace: a Node before 22.15 has no zstd (its answer is then kept at its estimate).
const DECODERS: Readonly<Record<string, ((body: Buffer) => Buffer) | undefined>> = {
  gzip: (body) => zlib.gunzipSync(body, FLUSHED),
  'x-gzip': (body) => zlib.gunzipSync(body, FLUSHED),
  br: (body) => zlib.brotliDecompressSync(body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  deflate: (body) => zlib.inflateSync(body, FLUSHED),
  zstd: zlib.zstdDecompressSync,
};

/** The usage an answer reported so far (undefined: none), its body decoded as far as it goes. */
function usageHeard(answer: IncomingMessage, chunks: readonly Buffer[]): MeteredUsage | undefined {
  const decode = DECODERS[String(answer.headers['content-encoding'] ?? '').trim().toLowerCase()] ?? ((bytes: Buffer) => bytes);
  return usageOfBody(safely(() => decode(Buffer.concat(chunks)).toString('utf8'), ''));
}

/** The model a request names (its body's `model`, else the path's: Gemini's `models/NAME:…`) and the most it lets the model answer, if it says. */
function requestFacts(path: string, body: Buffer): { model: string; maxOutput: number | undefined; tools: boolean } {
  const parsed = (safely(() => JSON.parse(body.toString('utf8')) as unknown, null) ?? {}) as Record<string, unknown>;
  const config = (parsed.generationConfig ?? {}) as Record<string, unknown>;
  const maxOutput = [parsed.max_tokens, parsed.max_output_tokens, config.maxOutputTokens].find((n): n is number => typeof n === 'number' && n > 0);
  const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : (/\/models\/([^/:?]+)/.exec(path)?.[1] ?? 'unknown');
  return { model, maxOutput, tools: Array.isArray(parsed.tools) && parsed.tools.length > 0 };
}

/**
 * One request of the agent's forwarded upstream and its answer streamed back; a model call's
 * usage read from the answer and reported to `metered`.
 */
function forwardCall(to: { upstream: URL; basePath: string; options: MeteringProxyOptions }, req: IncomingMessage, res: ServerResponse, body: Buffer, metered?: MeteredModelCall & { asked: { model: string; tools: boolean } }): Promise<void> {
  const { upstream, basePath, options } = to;
  return new Promise<void>((resolve) => {
    const done = (outcome: { error?: string; responseModel?: string }, usage?: Usage): void => {
      metered?.end(outcome);
      const model = outcome.responseModel ?? metered?.asked.model;
      if (metered && outcome.error === undefined && model !== undefined && model !== 'unknown') options.onModel?.({ model, tools: metered.asked.tools, ...(usage ? { usage } : {}) });
      resolve();
    };
    // What a billed answer has said so far. Cut short (SPEC §26), the call settles at the largest
    // usage it had reported (Anthropic's message_start, then each message_delta); with none, it keeps its worst case.
    let heard: { answer: IncomingMessage; chunks: Buffer[] } | undefined;
    const cut = (error: string): void => {
      const usage = heard && usageHeard(heard.answer, heard.chunks);
      if (usage && metered) {
        metered.usage(usage, options.price?.(usage));
        return done({ error: `${error} before its last usage: counted at the usage it had reported` });
      }
      done({ error });
    };
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    // The agent's own placeholder key never goes upstream: the person's, where given.
    for (const [name, value] of Object.entries(options.upstreamHeaders ?? {})) headers[name.toLowerCase()] = value;
    headers['content-length'] = String(body.length);
    // Asked uncompressed, so that its usage can be read (an answer compressed anyway is decoded).
    headers['accept-encoding'] = 'identity';
    // The agent was given `http://127.0.0.1:PORT` (its base); its path goes after the upstream's base path.
    const path = `${basePath}${req.url ?? '/'}`;
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    const up = send({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port || undefined, method: req.method, path, headers }, (answer) => {
      const status = answer.statusCode ?? 502;
      res.writeHead(status, answer.headers);
      // From its first byte of an answer the call is billed; an error answer is not.
      if (status < 400) metered?.answered();
      const chunks: Buffer[] = [];
      if (status < 400) heard = { answer, chunks };
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        if (size < MAX_METERED_BODY) chunks.push(chunk);
        size += chunk.length;
        res.write(chunk);
      });
      answer.on('end', () => {
        res.end();
        // An answer that the account is out of quota (SPEC §26) trips the provider's breaker: no call goes to it from any thread.
        if (status >= 400 && status < 500 && metered) tripOnQuota(to, status, answer, chunks, metered.asked.model);
        // An error answer is not billed; one whose usage cannot be read, even decoded, keeps its worst case.
        const usage = status >= 400 ? ZERO_USAGE : usageHeard(answer, chunks);
        if (usage !== undefined) metered?.usage(usage, status >= 400 ? 0 : options.price?.(usage as MeteredUsage));
        const model = (usage as Partial<MeteredUsage> | undefined)?.model;
        done({ ...(status >= 400 ? { error: `HTTP ${status}` } : {}), ...(model !== undefined && model !== 'unknown' ? { responseModel: model } : {}) }, usage);
      });
      answer.on('error', () => {
        res.destroy();
        cut('the answer broke off');
      });
    });
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Deepdesk's metering proxy could not reach the model: ${err.message}` } }));
      done({ error: err.message });
    });
    res.on('close', () => {
      if (res.writableFinished) return;
      up.destroy();
      cut('the agent closed the stream');
    });
    up.end(body);
  });
}

/** The provider and endpoint the agent's calls go to, as the quota breaker keys them. */
function breakerOf(to: { upstream: URL; options: MeteringProxyOptions }, model: string) {
  return { provider: to.options.agent.provider, endpoint: to.upstream.origin, id: `${to.options.agent.provider}:${model}` };
}

function tripOnQuota(to: { upstream: URL; options: MeteringProxyOptions }, status: number, answer: IncomingMessage, chunks: readonly Buffer[], model: string): void {
  const text = safely(() => Buffer.concat(chunks).toString('utf8'), '');
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k, String(v)]));
  const quota = quotaAnswer({ status, text, headers });
  if (quota === undefined) return;
  tripQuota(breakerOf(to, model), new QuotaError(`HTTP ${status}: ${text.slice(0, 300)}`, { status, ...(quota.resetAt !== undefined ? { resetAt: quota.resetAt } : {}) }));
  to.options.onQuota?.();
}

export async function startMeteringProxy(options: MeteringProxyOptions): Promise<MeteringProxy> {
  // Named after this process: one SIGKILLed leaves it to the next process's sweep.
  const { dir, socket } = makeSocketFolder('meter.sock');
  const upstream = new URL(options.upstream);
  const to = { upstream, basePath: upstream.pathname.replace(/\/$/, ''), options };
  let refused = 0;
  const closing = new AbortController();
  let told = false;
  let queue: Promise<void> = Promise.resolve();

  const refuse = (res: ServerResponse, why = "this thread's budget is spent; no further model calls"): void => {
    refused++;
    if (!told) {
      told = true;
      options.onBudget?.();
    }
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '86400' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'budget_exceeded', code: 'budget_exceeded', message: `Deepdesk: ${why}` } }));
  };

  /** A model call: its worst case held in this proxy's budget and the shared one (where there are), observed through the metering point, forwarded. */
  const call = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    if (req.method !== 'POST' || NOT_A_CALL.test(req.url ?? '')) return forwardCall(to, req, res, body);
    const { model, maxOutput, tools } = requestFacts(req.url ?? '/', body);
    // Its provider out of quota (tripped by any thread's call): the call is not made, and never retried into it.
    const tripped = quotaTripped(breakerOf(to, model));
    if (tripped !== undefined) {
      options.onQuota?.();
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'quota_exceeded', code: 'quota_exceeded', message: `Deepdesk: ${options.agent.provider} is out of quota (${tripped.said}); no call goes to it until it resets` } }));
      return;
    }
    // Its prompt from the request's size, four characters a token (for JSON, a generous count).
    const promptTokens = Math.ceil(body.length / 4);
    const maxOutputTokens = maxOutput ?? maxOutputTokensFor(`${options.agent.provider}:${model}`);
    const worst = options.price?.({ model, inputTokens: promptTokens, outputTokens: maxOutputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const held = await options.hold?.({ model, promptTokens, maxOutputTokens }, closing.signal).catch(() => ({ refused: 'the agent was stopped' }));
    if (held !== undefined && 'refused' in held) return refuse(res, held.refused);
    const hold: CallHold = {
      spend: (usage, costUsd) => held?.spend(usage, costUsd),
      release: () => held?.release(),
      keep: () => (held?.keep(), worst),
    };
    const info = { purpose: 'other-agent' as const, agent: options.agent.name, provider: options.agent.provider, model, system: '', messages: [], tools: [] };
    return forwardCall(to, req, res, body, Object.assign(meterModelCall(options.observer?.() ?? NOOP_RUN, info, hold), { asked: { model, tools } }));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!options.hold) {
        void call(req, res, body);
        return;
      }
      // With a budget, one call at a time: each is held, and let through, after the one before settled.
      queue = queue.then(() => call(req, res, body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  return {
    socket,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
