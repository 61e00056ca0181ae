// How long an exporter's flush or shutdown holds the run that ends (SPEC §17: an unreachable
// collector never slows a run): until what is queued has gone out, at most a few seconds, and
// no longer than it takes to learn that the collector cannot be reached. Past that point the
// exporters' retries (seconds of back-off) would only keep the run waiting for nothing.

import { connect } from 'node:net';

/** `work`, but no longer than `capMs`, nor than it takes `giveUp` to settle. */
export async function boundedWait(work: Promise<unknown>, capMs: number, giveUp?: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, capMs);
    timer.unref?.();
  });
  const done = (): undefined => undefined;
  try {
    await Promise.race([work.then(done, done), limit, ...(giveUp !== undefined ? [giveUp.then(done, done)] : [])]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Settles when a TCP connection to the host and port of `url` fails (refused, no route, no
 * such host); never when one is made (nor when `url` is not one to connect to). `ms` bounds
 * the attempt. The exporter's own connection is the SDK's: this one only tells whether
 * waiting for it can be worth it.
 */
export function connectionFails(url: string, ms: number): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return new Promise<void>(() => {});
  }
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise<void>((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref?.();
    socket.unref();
    socket.once('connect', () => socket.destroy());
    socket.once('error', () => resolve());
    socket.once('close', () => clearTimeout(timer));
  });
}

/**
 * Whether a collector answers, from the requests an exporter makes to it: a request that could
 * not be made says no, until one gets an answer again.
 */
export class Reachability {
  private unreachable = false;
  private readonly waiting = new Set<() => void>();

  answered(): void {
    this.unreachable = false;
  }

  failed(): void {
    this.unreachable = true;
    for (const giveUp of this.waiting) giveUp();
    this.waiting.clear();
  }

  /** `work`, but at most `capMs`, and not at all (or no longer) once a request failed. */
  async wait(work: Promise<unknown>, capMs: number): Promise<void> {
    if (this.unreachable) {
      work.catch(() => {});
      return;
    }
    let giveUp = (): void => {};
    const failed = new Promise<void>((resolve) => (giveUp = resolve));
    this.waiting.add(giveUp);
    try {
      await boundedWait(work, capMs, failed);
    } finally {
      this.waiting.delete(giveUp);
    }
  }
}
