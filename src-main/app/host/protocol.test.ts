import { describe, expect, it } from 'vitest';
import { AnswerFrame, AskFrame, ErrorFrame, EventFrame, HelloFrame, RefusedFrame, RequestFrame, ResultFrame, textPieces, WelcomeFrame } from './protocol';

describe('textPieces', () => {
  it('cuts text into pieces of at most the size, never between the halves of a character', () => {
    const text = 'ab😀cd😀😀e';
    for (let max = 1; max <= text.length + 1; max++) {
      const pieces = textPieces(text, max);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(Math.max(max, 2));
        // Each piece survives UTF-8 on its own.
        expect(new TextDecoder().decode(new TextEncoder().encode(piece))).toBe(piece);
      }
    }
    expect(textPieces('', 4)).toEqual([]);
  });
});

describe('the frames (zod mini: the same checks as before)', () => {
  it('takes a request, an ask and an answer only with a whole, non-negative id, and params or a result only as given', () => {
    expect(RequestFrame.safeParse({ id: 0, method: 'runs.start' })).toEqual({ success: true, data: { id: 0, method: 'runs.start' } });
    expect(RequestFrame.safeParse({ id: 3, method: 'm', params: { a: 1 }, extra: true }).data).toEqual({ id: 3, method: 'm', params: { a: 1 } });
    for (const id of [-1, 1.5, '1', Number.MAX_SAFE_INTEGER + 2, null]) {
      expect(RequestFrame.safeParse({ id, method: 'm' }).success, String(id)).toBe(false);
      expect(AskFrame.safeParse({ ask: id, method: 'm' }).success, String(id)).toBe(false);
      expect(AnswerFrame.safeParse({ answer: id }).success, String(id)).toBe(false);
    }
    expect(RequestFrame.safeParse({ id: 1 }).success).toBe(false);
    expect(AnswerFrame.safeParse({ answer: 2, error: { message: 'no' } }).data).toEqual({ answer: 2, error: { message: 'no' } });
    expect(AnswerFrame.safeParse({ answer: 2, error: { code: 'x' } }).success).toBe(false);
  });

  it('tells a hello, a welcome, a result, an error and an event by their fields', () => {
    expect(HelloFrame.safeParse({ type: 'hello', token: 't', client: 'run', version: '1' }).success).toBe(true);
    expect(HelloFrame.safeParse({ type: 'welcome', token: 't', client: 'run', version: '1' }).success).toBe(false);
    expect(WelcomeFrame.safeParse({ type: 'welcome', pid: 12, version: '1' }).success).toBe(true);
    expect(WelcomeFrame.safeParse({ type: 'welcome', pid: 1.5, version: '1' }).success).toBe(false);
    expect(RefusedFrame.safeParse({ type: 'refused', message: 'wrong token' }).success).toBe(true);
    expect(ResultFrame.safeParse({ id: -4, result: null }).success).toBe(true);
    expect(ErrorFrame.safeParse({ id: 1, error: { message: 'm', code: 'failed' } }).success).toBe(true);
    expect(ErrorFrame.safeParse({ id: 1, error: null }).success).toBe(false);
    expect(EventFrame.safeParse({ event: 'run.end', payload: { threadId: 'x' } }).data).toEqual({ event: 'run.end', payload: { threadId: 'x' } });
    expect(EventFrame.safeParse({ event: 7, payload: {} }).success).toBe(false);
  });
});
