import type { ProviderName } from './types';
import { oneLine } from '../text/markdown-code';
import { quotaAnswer, retryAfterFromHeaders } from './quota-answer';

export { retryAfterFromHeaders } from './quota-answer';

export interface ModelErrorOptions {
  status?: number;
  retryable?: boolean;
  provider?: ProviderName;
  /** Wait the server asked for (Retry-After / retry-after-ms), in milliseconds. */
  retryAfterMs?: number;
  /** The raw error body, when there was one. */
  body?: string;
  cause?: unknown;
}

/** A failed model call. `message` is one line, fit for a status bar or stderr. */
export class ModelError extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly provider: ProviderName | undefined;
  readonly retryAfterMs: number | undefined;
  readonly body: string | undefined;

  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.provider = options.provider;
    this.retryAfterMs = options.retryAfterMs;
    this.body = options.body;
  }

  /** A copy with another message (used to prefix the model id); keeps the class. */
  withMessage(message: string): ModelError {
    const Ctor = this.constructor as new (message: string, options: ModelErrorOptions) => ModelError;
    return new Ctor(message, {
      status: this.status,
      retryable: this.retryable,
      provider: this.provider,
      retryAfterMs: this.retryAfterMs,
      body: this.body,
      cause: this.cause,
    });
  }
}

/** The provider said the request does not fit the model's context window: summarize and try again. */
export class ContextOverflowError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'ContextOverflowError';
  }
}

/**
 * The provider (or the SDK, before sending) refused a media block the model does not take:
 * the adapter replaces that kind by SPEC §12's notice and tries once more (never a run-ending error).
 */
export class MediaNotTakenError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'MediaNotTakenError';
  }
}

/**
 * The provider says the account is out of quota, credit or its usage limit (SPEC §26;
 * quota-answer.ts tells it from a rate limit): never retried, and it trips the provider's
 * breaker (quota-breaker.ts). `resetAt`: when the provider said it lifts (epoch ms).
 */
export class QuotaError extends ModelError {
  readonly resetAt: number | undefined;

  constructor(message: string, options: ModelErrorOptions & { resetAt?: number | undefined } = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'QuotaError';
    this.resetAt = options.resetAt;
  }

  override withMessage(message: string): QuotaError {
    return new QuotaError(message, { status: this.status, provider: this.provider, retryAfterMs: this.retryAfterMs, body: this.body, cause: this.cause, resetAt: this.resetAt });
  }
}

/** The caller's AbortSignal fired (the person pressed Stop). */
export class AbortedError extends Error {
  constructor(message = 'The model request was aborted') {
    super(message);
    // Same name as DOM aborts, so generic `err.name === 'AbortError'` checks also match.
    this.name = 'AbortError';
  }
}

/** Bad model settings (unknown provider, missing model name, base URL or API key). Never retried. */
export class ModelConfigError extends Error {
  /**
   * What is missing, when that is the problem: the message is worded for the command line
   * (the variable, the flag), and a window says instead where to set it.
   */
  readonly missing: 'api-key' | 'base-url' | undefined;
  readonly provider: ProviderName | undefined;

  constructor(message: string, options: { missing?: 'api-key' | 'base-url'; provider?: ProviderName } = {}) {
    super(message);
    this.name = 'ModelConfigError';
    this.missing = options.missing;
    this.provider = options.provider;
  }
}

// Replies that mean "the prompt does not fit", as real servers word them:
//   OpenAI        code context_length_exceeded; "This model's maximum context length is 128000 tokens. However, your
//                 messages resulted in ..."; Responses API "Your input exceeds the context window of this model."
//   Anthropic     "prompt is too long: 208310 tokens > 200000 maximum"; "input length and `max_tokens` exceed context
//                 limit: 190000 + 21333 > 200000"; 413 request_too_large
//   llama.cpp     "the request exceeds the available context size, try increasing it" (exceed_context_size_error);
//                 "input is larger than the max context size"
//   vLLM          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens";
//                 "The decoder prompt (length 5000) is longer than the maximum model length of 4096"
//   LM Studio     "... the model is loaded with context length of only 4096 tokens, which is not enough";
//                 "tokens to keep from the initial prompt is greater than the context length"
//   Ollama        "input length exceeds maximum context length" / "exceeds the context length"
//   Mistral       "Prompt contains 40000 tokens ... too large for model with 32768 maximum context length"
//   TGI           "`inputs` tokens + `max_new_tokens` must be <= 4097"
//   Gemini        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
//   OpenRouter    "This endpoint's maximum context length is 131072 tokens"
//   Bedrock       "Input is too long for requested model"; Groq "Please reduce the length of the messages or completion"
const OVERFLOW_PATTERNS: RegExp[] = [
  /context_length_exceeded/i,
  /exceed_context_size/i,
  /maximum context length/i,
  /max(imum)? context (size|window|length)/i,
  /context (length|window|size) (is )?exceeded/i,
  /exceeds? (the )?(available |model'?s? )?context (size|window|length)/i,
  /(larger|longer|greater) than the (max(imum)? )?(context|model) (size|length|window)/i,
  /greater than the context length/i,
  /prompt is too long/i,
  /input length and `?max_tokens`? exceed/i,
  /exceed context limit/i,
  /input is too long/i,
  /request_too_large/i,
  /context length of only \d+/i,
  /too large for model with \d+ maximum context/i,
  /input token count .* exceeds the maximum/i,
  /tokens \+ `?max_new_tokens`? must be/i,
  /reduce the length of the (messages|prompt|input)/i,
  /too many (input |prompt )?tokens/i,
];

export function isContextOverflowText(text: string): boolean {
  return OVERFLOW_PATTERNS.some((re) => re.test(text));
}

// Replies that mean "this model does not take that media input", as servers word them:
//   llama.cpp     "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
//   LM Studio     "Model does not support images. Please use a model that does."
//   Ollama        "this model is missing data required for image input"; "model does not support images"
//   vLLM          "... is not a multimodal model"; "At most 0 image(s) may be provided in one request"
//   OpenAI        "Invalid content type. image_url is only supported by certain models."; "This model does not support audio input"
//   Gemini        "Unsupported MIME type: audio/x-foo"
//   AI SDK        UnsupportedFunctionalityError "'file part media type video/mp4' functionality not supported."
const MEDIA_NOT_TAKEN_PATTERNS: RegExp[] = [
  /(image|audio|video|vision|multimodal|multi-modal|pdf|document)s? (input|inputs|content|parts?)? ?(is |are )?not supported/i,
  /does(n't| not) support (image|images|audio|video|vision|multimodal|pdf|pdfs|documents?|files?)\b/i,
  /unsupported mime type/i,
  /not a multimodal model/i,
  /missing data required for image input/i,
  /at most 0 (image|audio|video)/i,
  /(image_url|input_audio|input_image|input_file) is only supported by certain models/i,
  /(media type|file parts?)\b.*functionality not supported/i,
];

export function isMediaNotTakenText(text: string): boolean {
  return MEDIA_NOT_TAKEN_PATTERNS.some((re) => re.test(text));
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529]);
const RETRYABLE_ERROR_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error', 'rate_limit_exceeded']);
const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT',
  'ConnectionRefused', 'ConnectionClosed', 'FailedToOpenSocket',
]);
const NETWORK_MESSAGES = /fetch failed|failed to fetch|socket hang up|other side closed|^terminated$|network error|cannot connect to api/i;
const API_CALL_ERROR_MARKER = Symbol.for('vercel.ai.error.AI_APICallError');

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/** Turns anything a provider call threw (or streamed as an error part) into our error types. */
export function classifyError(err: unknown, provider?: ProviderName): ModelError | AbortedError {
  if (err instanceof AbortedError || err instanceof ModelError) return err;
  if (isAbortError(err)) return new AbortedError();

  if (isApiCallError(err)) {
    const status = err.statusCode;
    const body = typeof err.responseBody === 'string' ? err.responseBody : undefined;
    const message = describeHttpError(status, err.message, body);
    const options: ModelErrorOptions = {
      status,
      provider,
      body,
      cause: err,
      retryAfterMs: retryAfterFromHeaders(err.responseHeaders),
    };
    // A body that breaks off after a 200 arrives as "Failed to process successful response" caused by the socket error.
    if ((status === undefined || status < 400) && isNetworkError(err)) {
      const chain = causeMessages(status === undefined ? err : err.cause);
      return new ModelError(`Network error: ${chain || err.message}`, { ...options, status: undefined, retryable: true });
    }
    const quota = quotaAnswer({ status, text: `${err.message}\n${body ?? ''}`, headers: err.responseHeaders });
    if (quota !== undefined) return new QuotaError(message, { ...options, ...quota });
    if (status !== 429 && isContextOverflowText(`${err.message}\n${body ?? ''}`)) {
      return new ContextOverflowError(message, options);
    }
    if (status !== undefined && status >= 400 && status !== 429 && isMediaNotTakenText(`${err.message}\n${body ?? ''}`)) {
      return new MediaNotTakenError(message, options);
    }
    const retryable = status === undefined ? err.isRetryable === true : isRetryableStatus(status);
    return new ModelError(message, { ...options, retryable });
  }

  if (err instanceof Error) {
    const message = oneLine(err.message) || err.name;
    if (isNetworkError(err)) return new ModelError(`Network error: ${causeMessages(err) || message}`, { retryable: true, provider, cause: err });
    if (isContextOverflowText(err.message)) return new ContextOverflowError(message, { provider, cause: err });
    // The SDK refuses some media before sending (e.g. video to an OpenAI-compatible server).
    if (err.name === 'AI_UnsupportedFunctionalityError' && isMediaNotTakenText(err.message)) return new MediaNotTakenError(message, { provider, cause: err });
    return new ModelError(message, { retryable: false, provider, cause: err });
  }

  // Stream error parts are often plain objects: { message, type, code, statusCode?, isRetryable? }.
  if (typeof err === 'object' && err !== null) {
    const record = err as Record<string, unknown>;
    const inner = (typeof record.error === 'object' && record.error !== null ? record.error : record) as Record<string, unknown>;
    const text = typeof inner.message === 'string' ? inner.message : JSON.stringify(err);
    const type = typeof inner.type === 'string' ? inner.type : undefined;
    const status = numberOr(inner.statusCode) ?? numberOr(inner.status) ?? numberOr(inner.code);
    const options: ModelErrorOptions = { status, provider, cause: err, body: safeStringify(err) };
    const message = status === undefined ? oneLine(text) : describeHttpError(status, text, undefined);
    const quota = quotaAnswer({ status, text: `${text}\n${type ?? ''}\n${String(inner.code ?? '')}` });
    if (quota !== undefined) return new QuotaError(message, { ...options, ...quota });
    if (status !== 429 && isContextOverflowText(`${text}\n${type ?? ''}\n${String(inner.code ?? '')}`)) {
      return new ContextOverflowError(message, options);
    }
    if (status !== 429 && isMediaNotTakenText(text)) return new MediaNotTakenError(message, options);
    const retryable =
      inner.isRetryable === true ||
      (status !== undefined && isRetryableStatus(status)) ||
      (type !== undefined && RETRYABLE_ERROR_TYPES.has(type));
    return new ModelError(message, { ...options, retryable });
  }

  return new ModelError(oneLine(String(err)), { retryable: false, provider, cause: err });
}

export function isAbortError(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'name' in err &&
    (err.name === 'AbortError' || err.name === 'ResponseAborted' || err.name === 'TimeoutError')
  );
}

interface ApiCallErrorLike extends Error {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  isRetryable?: boolean;
}

function isApiCallError(err: unknown): err is ApiCallErrorLike {
  return err instanceof Error && (err as unknown as Record<symbol, unknown>)[API_CALL_ERROR_MARKER] === true;
}

function isNetworkError(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (NETWORK_MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

function describeHttpError(status: number | undefined, message: string, body: string | undefined): string {
  let detail = oneLine(message);
  // When the body is not in the provider's error shape, the SDK's message is only the status text: use the body.
  if (body !== undefined && body.trim() !== '' && (detail === '' || !body.includes(message))) {
    detail = extractMessage(body);
  }
  const clipped = detail.length > 500 ? `${detail.slice(0, 500)}…` : detail;
  if (status === undefined) return clipped || 'Request failed';
  return clipped ? `HTTP ${status}: ${clipped}` : `HTTP ${status}`;
}

function extractMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed.error;
    if (typeof error === 'string') return oneLine(error);
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      return oneLine((error as { message: string }).message);
    }
    if (typeof parsed.message === 'string') return oneLine(parsed.message);
    if (typeof parsed.detail === 'string') return oneLine(parsed.detail);
  } catch {
    // not JSON: the body itself is the message
  }
  return oneLine(body);
}

function causeMessages(err: unknown): string {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  for (let current = err; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const text = oneLine(current.message);
    if (text !== '' && !messages.some((m) => m.includes(text))) messages.push(text);
  }
  return messages.join(': ');
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
