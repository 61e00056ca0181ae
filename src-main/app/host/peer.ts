// One connection to the agent host's socket (server.ts): unauthenticated until its hello (the
// token, compared in constant time), then a HostConnection of the service — requests answered
// in frames, events sent, asks of the client awaited — dropped when it falls too far behind.

import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { messageOf } from '../../core/fs/errno';
import { HostRequestError, type HostConnection } from '../base/host-service';
import { AnswerFrame, encodeFrame, errorResponse, HelloFrame, LineReader, MAX_BUFFERED_BYTES, RequestFrame, type ResponseFrame } from './protocol';

export interface PeerOptions {
  token: string;
  version: string;
  log: (line: string) => void;
  helloTimeoutMs: number;
  handle: (peer: Peer, method: string, params: unknown) => Promise<unknown>;
  onWelcome: () => void;
}

/** One connection: unauthenticated until its hello, then a HostConnection of the service. */
export class Peer implements HostConnection {
  client = '?';
  authenticated = false;
  private gone = false;
  private ending = false;
  private readonly listeners: (() => void)[] = [];
  private readonly asked = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextAsk = 1;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly reader: LineReader;

  constructor(
    readonly id: string,
    private readonly socket: Socket,
    private readonly options: PeerOptions,
  ) {
    this.reader = new LineReader({
      frame: (value) => this.frame(value),
      malformed: () => (this.authenticated ? this.reply(errorResponse(-1, 'malformed JSON', 'bad_request')) : this.refuse('expected a hello frame, got malformed JSON')),
      oversize: (limit) => this.drop(`a frame over ${limit / 1024 / 1024} MiB`),
    });
    this.helloTimer = setTimeout(() => this.refuse(`no hello within ${options.helloTimeoutMs / 1000} s`), options.helloTimeoutMs);
    this.helloTimer.unref();
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.closedNow());
  }

  get closed(): boolean {
    return this.gone || this.ending;
  }

  send(event: string, payload: unknown): void {
    if (!this.authenticated || this.closed) return;
    let text: string;
    try {
      text = encodeFrame({ event, payload });
    } catch (err) {
      this.options.log(`${this.id}: event ${event} could not be encoded: ${messageOf(err)}`);
      return;
    }
    this.write(text);
  }

  ask(method: string, params?: unknown): Promise<unknown> {
    if (!this.authenticated || this.closed) return Promise.reject(new Error(`${this.client} is not connected`));
    const id = this.nextAsk++;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      this.write(encodeFrame(params === undefined ? { ask: id, method } : { ask: id, method, params }));
    });
  }

  onClose(listener: () => void): void {
    if (this.gone) queueMicrotask(listener);
    else this.listeners.push(listener);
  }

  /** Ends the connection gracefully (what was written is still delivered). */
  end(): void {
    if (this.gone || this.ending) return;
    this.ending = true;
    this.reader.stop();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private frame(value: unknown): void {
    if (!this.authenticated) {
      this.hello(value);
      return;
    }
    if (typeof value === 'object' && value !== null && 'answer' in value) {
      const answer = AnswerFrame.safeParse(value);
      const asked = answer.success ? this.asked.get(answer.data.answer) : undefined;
      if (!answer.success || asked === undefined) return this.drop('an answer to nothing it was asked');
      this.asked.delete(answer.data.answer);
      if (answer.data.error !== undefined) asked.reject(new Error(answer.data.error.message));
      else asked.resolve(answer.data.result);
      return;
    }
    const request = RequestFrame.safeParse(value);
    if (!request.success) {
      const id = typeof value === 'object' && value !== null && Number.isInteger((value as { id?: unknown }).id) ? (value as { id: number }).id : -1;
      this.reply(errorResponse(id, 'expected a request {id, method, params}', 'bad_request'));
      return;
    }
    const { id, method, params } = request.data;
    void this.answer(id, method, params);
  }

  private async answer(id: number, method: string, params: unknown): Promise<void> {
    let response: ResponseFrame;
    try {
      const result = await this.options.handle(this, method, params);
      response = { id, result: result ?? null };
    } catch (err) {
      response = err instanceof HostRequestError ? errorResponse(id, err.message, err.code) : errorResponse(id, messageOf(err), 'failed');
    }
    this.reply(response);
  }

  private hello(value: unknown): void {
    const hello = HelloFrame.safeParse(value);
    if (!hello.success) {
      this.refuse('expected a hello frame first');
      return;
    }
    if (!sameSecret(hello.data.token, this.options.token)) {
      this.refuse('wrong token');
      return;
    }
    clearTimeout(this.helloTimer);
    this.authenticated = true;
    this.client = hello.data.client;
    this.options.log(`${this.id}: ${hello.data.client} ${hello.data.version} attached`);
    this.write(encodeFrame({ type: 'welcome', pid: process.pid, version: this.options.version }));
    this.options.onWelcome();
  }

  private refuse(message: string): void {
    if (this.closed) return;
    clearTimeout(this.helloTimer);
    this.options.log(`${this.id}: refused: ${message}`);
    this.write(encodeFrame({ type: 'refused', message }));
    this.end();
  }

  private drop(why: string): void {
    if (this.closed) return;
    this.options.log(`${this.id} (${this.client}): dropped: ${why}`);
    if (this.authenticated) this.write(encodeFrame(errorResponse(-1, `connection dropped: ${why}`, 'bad_request')));
    this.end();
  }

  private reply(frame: ResponseFrame): void {
    let text: string;
    try {
      text = encodeFrame(frame);
    } catch (err) {
      text = encodeFrame(errorResponse(frame.id, `the answer could not be encoded: ${messageOf(err)}`, 'failed'));
    }
    this.write(text);
  }

  private write(text: string): void {
    if (this.gone || this.ending || !this.socket.writable) return;
    if (this.socket.writableLength + Buffer.byteLength(text) > MAX_BUFFERED_BYTES) {
      this.options.log(`${this.id} (${this.client}): dropped: fell over ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB behind`);
      this.socket.destroy();
      return;
    }
    this.socket.write(text);
  }

  private closedNow(): void {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.helloTimer);
    this.reader.stop();
    for (const asked of this.asked.values()) asked.reject(new Error(`${this.client} went away before answering`));
    this.asked.clear();
    if (!this.authenticated && !this.ending) this.options.log(`${this.id}: closed before its hello`);
    else if (this.authenticated) this.options.log(`${this.id}: ${this.client} detached`);
    for (const listener of this.listeners.splice(0)) {
      try {
        listener();
      } catch (err) {
        this.options.log(`${this.id}: a close listener failed: ${messageOf(err)}`);
      }
    }
  }
}

/** Whether a secret given is the one expected, compared in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
