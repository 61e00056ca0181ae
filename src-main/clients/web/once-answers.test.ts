import { describe, expect, it } from 'vitest';
import type { ResponseFrame } from '../../app/contract';
import { createOnceAnswers } from './once-answers';

const frame = (id: number, extra: Record<string, unknown> = {}) => ({ id, method: 'threads.send', params: {}, once: 'tab:1', ...extra });

describe('once answers', () => {
  it('runs a keyed call once: its replay gets the first answer with its own id', async () => {
    const once = createOnceAnswers();
    let runs = 0;
    const run = async (): Promise<ResponseFrame> => ({ id: 1, result: { n: ++runs } });
    expect(await once.answer(frame(1), run)).toEqual({ id: 1, result: { n: 1 } });
    expect(await once.answer(frame(7, { replay: true }), run)).toEqual({ id: 7, result: { n: 1 } });
    expect(runs).toBe(1);
  });

  it('a replay of a key it never saw is not run, and says it may or may not have been done', async () => {
    const once = createOnceAnswers();
    let runs = 0;
    const answer = await once.answer(frame(3, { replay: true, once: 'other:3' }), async () => ({ id: 3, result: ++runs }));
    expect(runs).toBe(0);
    expect(answer).toEqual({ id: 3, error: { code: 'failed', message: expect.stringContaining('may or may not have been done') } });
  });

  it('frames without a key run every time; a big answer is not kept, and its replay asks to call again', async () => {
    const once = createOnceAnswers();
    let runs = 0;
    const run = async (): Promise<ResponseFrame> => ({ id: 1, result: ++runs });
    await once.answer({ id: 1, method: 'app.info' }, run);
    await once.answer({ id: 1, method: 'app.info' }, run);
    expect(runs).toBe(2);
    await once.answer(frame(1, { once: 'big' }), run);
    once.sent(frame(1, { once: 'big' }), 10_000_000);
    expect(await once.answer(frame(2, { once: 'big', replay: true }), run)).toMatchObject({ id: 2, error: { message: expect.stringContaining('ask again') } });
    expect(runs).toBe(3);
  });

  it('a key replayed on another call (another tab’s, a forged replay) is neither run nor given the first call’s answer', async () => {
    const once = createOnceAnswers();
    const ran: string[] = [];
    await once.answer(frame(1, { method: 'threads.read', params: { threadId: 'a-thread' } }), async () => ({ id: 1, result: { text: 'what tab 1 read' } }));
    const sent = { method: 'threads.send', params: { threadId: 'b', text: 'hi' } };
    for (const extra of [{}, { replay: true }]) {
      const answer = await once.answer(frame(2, { ...sent, ...extra }), async () => (ran.push('send'), { id: 2, result: 'sent' }));
      expect(JSON.stringify(answer)).not.toContain('what tab 1 read');
      expect(answer).toMatchObject({ id: 2, error: { message: expect.stringContaining('already used for another call') } });
    }
    expect(ran).toEqual([]);
    // The same call replayed still gets its own first answer.
    expect(await once.answer(frame(3, { method: 'threads.read', params: { threadId: 'a-thread' }, replay: true }), async () => ({ id: 3, result: 'again' }))).toEqual({ id: 3, result: { text: 'what tab 1 read' } });
  });

  it('a replay that comes while the first call still runs (another tab’s connection) waits for its answer and never runs it again', async () => {
    const once = createOnceAnswers();
    let runs = 0;
    let finish!: () => void;
    const run = () => new Promise<ResponseFrame>((resolve) => (finish = () => resolve({ id: 1, result: { n: ++runs } })));
    const first = once.answer(frame(1), run);
    const replays = [once.answer(frame(8, { replay: true }), run), once.answer(frame(9), run)];
    // A forged replay of the key on another call is refused at once, while the first still runs.
    expect(await once.answer(frame(10, { replay: true, method: 'threads.delete', params: { threadId: 'a' } }), run)).toMatchObject({ id: 10, error: { code: 'bad_request' } });
    finish();
    expect(await first).toEqual({ id: 1, result: { n: 1 } });
    expect(await Promise.all(replays)).toEqual([
      { id: 8, result: { n: 1 } },
      { id: 9, result: { n: 1 } },
    ]);
    expect(runs).toBe(1);
  });

  it('forgets keys after a while', async () => {
    let clock = 0;
    const once = createOnceAnswers(() => clock);
    await once.answer(frame(1), async () => ({ id: 1, result: 1 }));
    clock = 10 * 60_000;
    await once.answer(frame(2, { once: 'tab:2' }), async () => ({ id: 2, result: 2 }));
    expect(await once.answer(frame(3, { replay: true }), async () => ({ id: 3, result: 3 }))).toMatchObject({ error: { code: 'failed' } });
  });
});
