import { describe, expect, it } from 'vitest';
import type { FolderSession } from './folder-session';
import { FolderSessionPool, NoticeRoute, type KeptSession } from './session-pool';

/** A session that only counts its closes (the pool never looks inside one). */
function kept(fresh: () => boolean = () => true): KeptSession & { closes: number; refreshes: number } {
  const k = {
    closes: 0,
    refreshes: 0,
    session: { close: async () => void k.closes++ } as unknown as FolderSession,
    route: new NoticeRoute(),
    stillFresh: fresh,
    refresh: () => void k.refreshes++,
  };
  return k;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Polls until `done` holds (a loaded machine may run timers late). */
async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 45_000; !done(); ) {
    if (Date.now() > deadline) throw new Error('timed out');
    await settle();
  }
}

describe('FolderSessionPool', () => {
  it('gives a kept session back under its key, refreshed, and only while it is still fresh', async () => {
    const pool = new FolderSessionPool();
    const a = kept();
    pool.give('a', a);
    expect(pool.take('b')).toBeUndefined();
    expect(pool.take('a')).toBe(a);
    expect(a.refreshes).toBe(1);
    expect(pool.take('a')).toBeUndefined();

    let fresh = true;
    const b = kept(() => fresh);
    pool.give('b', b);
    fresh = false;
    expect(pool.take('b')).toBeUndefined();
    await settle();
    expect(b.closes).toBe(1);
    await pool.close();
  });

  it('never keeps a session that told the person something, nor a second one of a key', async () => {
    const pool = new FolderSessionPool();
    const spoke = kept();
    const heard: string[] = [];
    spoke.route.to((line) => heard.push(line));
    spoke.route.say('settings.json could not be read');
    expect(heard).toEqual(['settings.json could not be read']);
    pool.give('a', spoke);
    expect(pool.take('a')).toBeUndefined();

    const one = kept();
    const two = kept();
    pool.give('b', one);
    pool.give('b', two);
    await settle();
    expect([spoke.closes, one.closes, two.closes]).toEqual([1, 0, 1]);
    // Said while idle: not taken again.
    one.route.say('trust.json changed on disk but could not be read');
    expect(pool.take('b')).toBeUndefined();
    await pool.close();
  });

  it('closes the least recently kept beyond its size, after its idle time, after many runs, and all when closed', async () => {
    const pool = new FolderSessionPool({ maxIdle: 2, idleMs: 50, maxUses: 2 });
    const [a, b, c] = [kept(), kept(), kept()];
    pool.give('a', a);
    pool.give('b', b);
    pool.give('c', c);
    expect(pool.size).toBe(2);
    await until(() => a.closes === 1);
    await until(() => b.closes === 1 && c.closes === 1);
    expect(pool.size).toBe(0);

    const d = kept();
    pool.give('d', d);
    expect(pool.take('d')).toBe(d);
    pool.give('d', d);
    await until(() => d.closes === 1);

    const e = kept();
    pool.give('e', e);
    await pool.close();
    expect(e.closes).toBe(1);
    const late = kept();
    pool.give('e', late);
    await pool.close();
    expect(late.closes).toBe(1);
  });
});
