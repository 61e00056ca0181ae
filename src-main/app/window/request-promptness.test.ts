// Every request the window makes answers promptly; slow work goes on in the background and
// its result arrives as an event (issue 42). Here: a git mount's history, whose first use
// clones the remote, against a real git and a remote that accepts connections and never answers.

import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useAppTestEnv } from './app-harness.test-support';

const t = useAppTestEnv('deepdesk-promptness');

let silent: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
  silent = undefined;
});

/** A TCP server that takes every connection and says nothing: a git remote that hangs. */
async function silentRemote(): Promise<number> {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
  return (silent.address() as { port: number }).port;
}

describe('requests answer promptly', () => {
  it("a git mount's history answers while the remote is still being cloned, and mounts.changed follows when the clone is over", async () => {
    const port = await silentRemote();
    const { call, events } = await t.open();
    await call('mounts.add', { prefix: '/kb/', spec: `git+http://127.0.0.1:${port}/kb.git` });
    // The remote never answers until the test ends it below: an answer now came while the clone was still pending.
    const answer = await call('mounts.history', { prefix: '/kb/' });
    expect(answer).toEqual({ commits: [], cloning: true });

    // The remote goes away: the clone fails, and the window hears the mounts changed.
    const before = events.filter((e) => e.event === 'mounts.changed').length;
    for (const socket of sockets) socket.destroy();
    silent!.close();
    await expect.poll(() => events.filter((e) => e.event === 'mounts.changed').length, { timeout: 60_000 }).toBeGreaterThan(before);
  }, 60_000);
});
