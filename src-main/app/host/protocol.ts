// The frames on the agent host's socket: one JSON value a line. A client says hello with the
// token first; then requests and their responses, and events the host sends on its own.
// Checked with zod's mini build (the same core and checks as the full one): a client of the
// host — every `deepdesk run` — loads it without the full API's layer.

import * as z from 'zod/mini';
import type { HostRequestError } from '../base/host-service';

/** As the web host's (host/web/socket-hub.ts): a message with its attachments fits. */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;
/** A peer that falls this far behind is dropped (it reconnects and refetches). */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export const HelloFrame = z.object({ type: z.literal('hello'), token: z.string(), client: z.string(), version: z.string() });
export type HelloFrame = z.infer<typeof HelloFrame>;

export const WelcomeFrame = z.object({ type: z.literal('welcome'), pid: z.int(), version: z.string() });
export type WelcomeFrame = z.infer<typeof WelcomeFrame>;

export const RefusedFrame = z.object({ type: z.literal('refused'), message: z.string() });
export type RefusedFrame = z.infer<typeof RefusedFrame>;

export const RequestFrame = z.object({ id: z.int().check(z.nonnegative()), method: z.string(), params: z.optional(z.unknown()) });
export type RequestFrame = z.infer<typeof RequestFrame>;

export type ErrorCode = HostRequestError['code'];
const ERROR_CODES: readonly ErrorCode[] = ['bad_request', 'not_found', 'failed', 'needs_settings'];

/** `id` is -1 when the line could not be read as a request. */
export const ResultFrame = z.object({ id: z.int(), result: z.unknown() });
export const ErrorFrame = z.object({ id: z.int(), error: z.object({ message: z.string(), code: z.string() }) });
export type ResponseFrame = { id: number; result: unknown } | { id: number; error: { message: string; code: ErrorCode } };

export const EventFrame = z.object({ event: z.string(), payload: z.unknown() });
export type EventFrame = z.infer<typeof EventFrame>;

/** The host asks a client for what only it can do (the desktop app's keychain, its browser). */
export const AskFrame = z.object({ ask: z.int().check(z.nonnegative()), method: z.string(), params: z.optional(z.unknown()) });
export type AskFrame = z.infer<typeof AskFrame>;

/** A client's answer to an ask: its result, or why not. */
export const AnswerFrame = z.object({ answer: z.int().check(z.nonnegative()), result: z.optional(z.unknown()), error: z.optional(z.object({ message: z.string() })) });
export type AnswerFrame = z.infer<typeof AnswerFrame>;

/** A code from the wire as one the client knows (an unknown one is `failed`). */
export function errorCode(code: string): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : 'failed';
}

export function errorResponse(id: number, message: string, code: ErrorCode): ResponseFrame {
  return { id, error: { message, code } };
}

/** One frame as its line. Throws when the value cannot be encoded (a cycle, a BigInt). */
export function encodeFrame(frame: object): string {
  return `${JSON.stringify(frame)}\n`;
}

export interface LineHandlers {
  /** A complete line that parsed as JSON. */
  frame(value: unknown): void;
  /** A complete line that did not. */
  malformed(): void;
  /** A line grew over the limit: nothing more is read. */
  oversize(limit: number): void;
}

/**
 * Splits a byte stream into JSON lines. Never throws on what it is sent; a line over
 * `maxBytes` stops it (the connection is to be dropped: the peer is broken or hostile).
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private stopped = false;

  constructor(
    private readonly handlers: LineHandlers,
    private readonly maxBytes: number = MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (this.size + piece.length > this.maxBytes) {
        this.stop();
        this.handlers.oversize(this.maxBytes);
        return;
      }
      if (newline === -1) {
        if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
        return;
      }
      const line = this.size === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.size = 0;
      start = newline + 1;
      this.line(line);
    }
  }

  stop(): void {
    this.stopped = true;
    this.parts = [];
    this.size = 0;
  }

  private line(bytes: Buffer): void {
    const text = bytes.toString('utf8').trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.handlers.malformed();
      return;
    }
    this.handlers.frame(value);
  }
}

/**
 * `text` in pieces of at most `max` UTF-16 units, never splitting a surrogate pair (a piece
 * that ends half a character would reach the other side as U+FFFD).
 */
export function textPieces(text: string, max: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + max, text.length);
    const last = text.charCodeAt(end - 1);
    // A cut after a high surrogate moves before it (or, in a piece of one unit, after its pair).
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - at > 1 ? -1 : 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}
