import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { AbortedError, ContextOverflowError, MediaNotTakenError, ModelError, classifyError, isContextOverflowText, isMediaNotTakenText, retryAfterFromHeaders } from './errors';

function apiError(statusCode: number | undefined, message: string, responseBody?: string, responseHeaders?: Record<string, string>) {
  return new APICallError({ message, url: 'http://x/v1/chat/completions', requestBodyValues: {}, statusCode, responseBody, responseHeaders });
}

describe('isContextOverflowText', () => {
  it.each([
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    'context_length_exceeded',
    'Your input exceeds the context window of this model. Please adjust your input and try again.',
    'prompt is too long: 208310 tokens > 200000 maximum',
    'input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000, decrease input length or `max_tokens` and try again',
    'the request exceeds the available context size, try increasing it',
    'The decoder prompt (length 5000) is longer than the maximum model length of 4096.',
    'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.',
    'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4097. Given: 4000 `inputs` tokens and 200 `max_new_tokens`',
    'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    'input length exceeds maximum context length',
    'Input is too long for requested model.',
  ])('recognises %s', (text) => {
    expect(isContextOverflowText(text)).toBe(true);
  });

  it.each(['Invalid API key', 'Rate limit reached for requests', 'model not found', 'Overloaded'])('does not flag %s', (text) => {
    expect(isContextOverflowText(text)).toBe(false);
  });
});

describe('classifyError', () => {
  it('classifies HTTP errors by status', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 529]) {
      const err = classifyError(apiError(status, 'x'), 'openai');
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).retryable).toBe(true);
      expect((err as ModelError).status).toBe(status);
      expect((err as ModelError).provider).toBe('openai');
    }
    for (const status of [400, 401, 403, 404, 422]) {
      expect((classifyError(apiError(status, 'x')) as ModelError).retryable).toBe(false);
    }
  });

  it('finds overflow in the body when the SDK only had the status text', () => {
    const body = JSON.stringify({ object: 'error', message: "This model's maximum context length is 4096 tokens.", code: 400 });
    const err = classifyError(apiError(400, 'Bad Request', body));
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err.message).toBe("HTTP 400: This model's maximum context length is 4096 tokens.");
  });

  it('never calls a 429 an overflow', () => {
    const err = classifyError(apiError(429, 'Request too large for gpt-4o: too many tokens per min'));
    expect(err).not.toBeInstanceOf(ContextOverflowError);
    expect((err as ModelError).retryable).toBe(true);
  });

  it('uses a plain-text body as the message', () => {
    expect(classifyError(apiError(502, 'Bad Gateway', 'upstream connect error')).message).toBe('HTTP 502: upstream connect error');
    expect(classifyError(apiError(503, 'Service Unavailable', '')).message).toBe('HTTP 503: Service Unavailable');
  });

  it('reads Retry-After', () => {
    expect((classifyError(apiError(429, 'slow down', undefined, { 'retry-after': '3' })) as ModelError).retryAfterMs).toBe(3000);
    expect(retryAfterFromHeaders({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(retryAfterFromHeaders({ 'Retry-After': 'Wed, 21 Oct 2015 07:28:05 GMT' }, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000);
    expect(retryAfterFromHeaders({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });

  it('treats network failures as retryable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const err = classifyError(fetchFailed) as ModelError;
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('Network error: fetch failed: connect ECONNREFUSED 127.0.0.1:11434');
    expect((classifyError(new Error('socket hang up')) as ModelError).retryable).toBe(true);
    expect((classifyError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })) as ModelError).retryable).toBe(true);
    const sdkWrapped = new APICallError({ message: 'Cannot connect to API: connect ECONNREFUSED', url: 'u', requestBodyValues: {}, cause: refused, isRetryable: true });
    expect((classifyError(sdkWrapped) as ModelError).retryable).toBe(true);
  });

  it('maps aborts to AbortedError', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(classifyError(abort)).toBeInstanceOf(AbortedError);
    expect(classifyError(new AbortedError())).toBeInstanceOf(AbortedError);
  });

  it('classifies stream error parts (plain objects)', () => {
    const overloaded = classifyError({ message: 'Overloaded', type: 'overloaded_error', statusCode: 529, isRetryable: true }, 'anthropic') as ModelError;
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.message).toBe('HTTP 529: Overloaded');
    const llamaCpp = classifyError({ error: { code: 400, message: 'the request exceeds the available context size', type: 'exceed_context_size_error' } });
    expect(llamaCpp).toBeInstanceOf(ContextOverflowError);
    const other = classifyError({ message: 'weird', type: 'invalid_request_error' }) as ModelError;
    expect(other.retryable).toBe(false);
    expect(other.message).toBe('weird');
  });

  it('keeps the subclass when re-messaged', () => {
    const err = new ContextOverflowError('too long', { status: 400, provider: 'anthropic' }).withMessage('anthropic:x: too long');
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err.message).toBe('anthropic:x: too long');
    expect(err.status).toBe(400);
    expect(err.retryable).toBe(false);
  });

  it('recognises a media refusal from a server or from the SDK, and nothing else', () => {
    expect(classifyError(apiError(400, 'Bad Request', '{"error":{"message":"Model does not support images. Please use a model that does."}}'))).toBeInstanceOf(MediaNotTakenError);
    expect(classifyError(apiError(429, 'image input is not supported'))).not.toBeInstanceOf(MediaNotTakenError);
    const sdk = new UnsupportedFunctionalityError({ functionality: 'file part media type video/mp4' });
    expect(classifyError(sdk)).toBeInstanceOf(MediaNotTakenError);
    expect(classifyError(new UnsupportedFunctionalityError({ functionality: 'tool choice type: required' }))).not.toBeInstanceOf(MediaNotTakenError);
    for (const text of ['image input is not supported - hint: provide the mmproj', 'this model is missing data required for image input', 'Unsupported MIME type: audio/ogg', 'Qwen2 is not a multimodal model', 'Invalid content type. image_url is only supported by certain models.']) {
      expect(isMediaNotTakenText(text), text).toBe(true);
    }
    for (const text of ['bad temperature', 'prompt is too long', 'Tool choice is not supported']) expect(isMediaNotTakenText(text), text).toBe(false);
  });
});
