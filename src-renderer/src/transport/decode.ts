// Validation of what arrives from the main process, against the contract.

import { events, methods, type EventName, type MethodName } from '../../../src-main/app/contract';
import { TransportError } from './errors';

const ERROR_CODES = new Set(['bad_request', 'not_found', 'failed', 'needs_settings']);

/** A response frame's result, validated, or a TransportError. */
export function decodeResponse(method: MethodName, frame: unknown): unknown {
  if (typeof frame !== 'object' || frame === null) return new TransportError(`malformed answer for ${method}`, 'failed');
  if ('error' in frame) {
    const error = (frame as { error: unknown }).error as { message?: unknown; code?: unknown } | null;
    const message = typeof error?.message === 'string' ? error.message : `${method} failed`;
    const code = typeof error?.code === 'string' && ERROR_CODES.has(error.code) ? (error.code as 'bad_request' | 'not_found' | 'failed' | 'needs_settings') : 'failed';
    return new TransportError(message, code);
  }
  const parsed = methods[method].result.safeParse((frame as { result?: unknown }).result);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'result'}: ${i.message}`).join('; ');
    console.warn(`deepdesk: ${method} answered outside the contract: ${detail}`);
    return new TransportError(`invalid answer for ${method}: ${detail}`, 'failed');
  }
  return parsed.data;
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(events, name);
}

/** A validated event frame, or undefined (with a console warning) when it is not one. */
export function decodeEvent(frame: unknown): { event: EventName; payload: unknown } | undefined {
  const { event, payload } = (frame ?? {}) as { event?: unknown; payload?: unknown };
  if (!isEventName(event)) {
    console.warn('deepdesk: dropped an event of unknown type', event);
    return undefined;
  }
  const parsed = events[event].safeParse(payload);
  if (!parsed.success) {
    console.warn(`deepdesk: dropped an invalid '${event}' event: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ')}`);
    return undefined;
  }
  return { event, payload: parsed.data };
}
