// The renderer's Electron transport over a stand-in bridge that does what the preload and
// the main-process IPC handler do (Electron itself cannot run here).

import { describe, expect, it, vi } from 'vitest';
import { ContractError, type EventFrame, type MethodName } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { createBridgeTransport } from '../../../src-renderer/src/transport';
import { handleRequestFrame } from '../web/handle-frame';
import type { DeepdeskBridge } from './bridge-api';

function setup(): { api: WindowApi & { emit(frame: EventFrame): void }; bridge: DeepdeskBridge; listeners: Set<(frame: EventFrame) => void> } {
  const listeners = new Set<(frame: EventFrame) => void>();
  const api = {
    async handle(method: MethodName, params: unknown): Promise<unknown> {
      if (method === 'threads.get') throw new ContractError(`no thread ${(params as { threadId: string }).threadId}`, 'not_found');
      if (method === 'threads.delete') throw new Error('boom');
      return { ok: true };
    },
    onEvent(listener: (frame: EventFrame) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(frame: EventFrame) {
      for (const listener of listeners) listener(frame);
    },
  };
  const bridge: DeepdeskBridge = {
    // IPC structured-clones both ways.
    call: async (method, params) => structuredClone(await handleRequestFrame(api, structuredClone({ id: 0, method, params }))),
    onEvent: (listener) => api.onEvent((frame) => listener(structuredClone(frame))),
  };
  return { api, bridge, listeners };
}

describe('renderer bridge transport', () => {
  it('unwraps results and turns error frames into TransportErrors with their code', async () => {
    const { bridge } = setup();
    const t = createBridgeTransport(bridge);
    expect(t.kind).toBe('electron');
    expect(await t.call('threads.stop', { threadId: 't1' })).toEqual({ ok: true });
    await expect(t.call('threads.get', { threadId: 'zz' })).rejects.toMatchObject({ name: 'TransportError', code: 'not_found', message: 'no thread zz' });
    await expect(t.call('threads.delete', { threadId: 't1' })).rejects.toMatchObject({ code: 'failed', message: 'boom' });
    await expect(t.call('threads.rename', { threadId: 't1', title: '' })).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('reports a failing bridge as a failed call', async () => {
    const t = createBridgeTransport({ call: () => Promise.reject(new Error('refused a call')), onEvent: () => () => undefined });
    await expect(t.call('threads.list', {})).rejects.toMatchObject({ code: 'failed', message: expect.stringContaining('refused a call') });
  });

  it('validates events and unsubscribes from the bridge on close', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api, bridge, listeners } = setup();
    const t = createBridgeTransport(bridge);
    const seen: unknown[] = [];
    t.on('approvals.changed', (payload) => seen.push(payload));
    api.emit({ event: 'approvals.changed', payload: { threadId: 't1' } });
    api.emit({ event: 'approvals.changed', payload: { threadId: 7 } });
    expect(seen).toEqual([{ threadId: 't1' }]);
    expect(warn).toHaveBeenCalledTimes(1);
    t.close();
    expect(listeners.size).toBe(0);
    warn.mockRestore();
  });
});

describe('the desktop page without its bridge', () => {
  it('fails every call saying the preload did not load, and never opens a WebSocket', async () => {
    const { createTransport } = await import('../../../src-renderer/src/transport');
    const WebSocketBefore = globalThis.WebSocket;
    const opened = vi.fn();
    vi.stubGlobal('location', { protocol: 'app:', host: 'deepdesk' });
    vi.stubGlobal('WebSocket', opened);
    try {
      const t = createTransport();
      expect(t.kind).toBe('electron');
      await expect(t.call('app.info', {})).rejects.toMatchObject({ code: 'failed', message: expect.stringContaining('preload script) did not load') });
      expect(opened).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
      expect(globalThis.WebSocket).toBe(WebSocketBefore);
    }
  });
});
