// The window's app as a transport serves it, when the app lives in the agent host: requests
// become `window.call`, the host's `window.event`s are the app's events. A host that dies is
// told in one line and a new one is started and the window opened again (the browser
// refetches what it shows); the requests in flight at that moment fail.

import { ContractError, type EventFrame, type MethodName, type NoticeDto } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { HostRequestError } from '../../app/base/host-service';
import type { WindowOpenParams } from '../../app/host/windows';
import { HostClient, HostGoneError, type HostConnectOptions } from './client';

export interface HostWindowOptions {
  connect: HostConnectOptions;
  window: WindowOpenParams;
  /** Each notice once (`serve` prints them). */
  onNotice?: (notice: NoticeDto) => void;
  /** One line when the host went away and when it is back. */
  onHostGone?: (line: string) => void;
  /** What this window answers when the host asks (the desktop app's keychain, dialog and browser). */
  answers?: Readonly<Record<string, (params: unknown) => Promise<unknown>>>;
}

const RECONNECT_ATTEMPTS = 5;

export class HostWindow implements WindowApi {
  private readonly listeners = new Set<(frame: EventFrame) => void>();
  private readonly told = new Set<string>();
  private client: HostClient | undefined;
  private reconnecting: Promise<void> | undefined;
  private closed = false;

  /** The folder open now: a new host opens the window on it. */
  private folder: string | null;

  private constructor(private readonly options: HostWindowOptions) {
    this.folder = options.window.folder;
  }

  /** Connects (starting the host when none runs) and opens the window; rejects as `window.open` does (a ContractError). */
  static async open(options: HostWindowOptions): Promise<HostWindow> {
    const window = new HostWindow(options);
    await window.connect();
    return window;
  }

  async handle(method: MethodName, params: unknown): Promise<unknown> {
    await this.reconnecting;
    const client = this.client;
    if (client === undefined) throw new ContractError('the agent host is not reachable', 'failed');
    try {
      return await client.request('window.call', { method, params });
    } catch (err) {
      if (err instanceof HostRequestError) throw new ContractError(err.message, err.code);
      if (err instanceof HostGoneError) throw new ContractError('the agent host stopped; it is being started again', 'failed');
      throw err;
    }
  }

  onEvent(listener: (frame: EventFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.close();
  }

  /** A request of the host's own (not the window's contract), e.g. `runs.stop`. */
  async hostRequest<T>(method: string, params?: unknown): Promise<T> {
    await this.reconnecting;
    if (this.client === undefined) throw new ContractError('the agent host is not reachable', 'failed');
    return this.client.request<T>(method, params);
  }

  private async connect(): Promise<void> {
    const client = await HostClient.connect(this.options.connect);
    for (const [method, handler] of Object.entries(this.options.answers ?? {})) client.answer(method, handler);
    client.onEvent((event, payload) => {
      if (event !== 'window.event') return;
      const frame = payload as EventFrame;
      if (frame.event === 'app.notice') this.tell(frame.payload as NoticeDto);
      if (frame.event === 'app.folderChanged') this.folder = (frame.payload as { folder: string | null }).folder;
      for (const listener of this.listeners) listener(frame);
    });
    let opened: { notices: NoticeDto[] };
    try {
      opened = await client.request<{ notices: NoticeDto[] }>('window.open', { ...this.options.window, folder: this.folder });
    } catch (err) {
      await client.close();
      if (err instanceof HostRequestError) throw new ContractError(err.message, err.code);
      throw err;
    }
    for (const notice of opened.notices) this.tell(notice);
    client.onClose((reason) => {
      if (this.closed || this.client !== client) return;
      this.client = undefined;
      this.options.onHostGone?.(`the agent host stopped (${reason}); starting it again…`);
      this.reconnecting = this.reconnect().finally(() => (this.reconnecting = undefined));
    });
    this.client = client;
  }

  private async reconnect(): Promise<void> {
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS && !this.closed; attempt++) {
      try {
        await this.connect();
        this.options.onHostGone?.('the agent host is back');
        return;
      } catch (err) {
        if (attempt === RECONNECT_ATTEMPTS) this.options.onHostGone?.(`the agent host could not be started again: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  private tell(notice: NoticeDto): void {
    if (this.told.has(notice.id)) return;
    this.told.add(notice.id);
    this.options.onNotice?.(notice);
  }
}
