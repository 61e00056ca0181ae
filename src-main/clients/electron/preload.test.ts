// The preload's surface, with the faked `electron` module: one object on the page's window,
// `deepdeskBridge`, with `call` and `onEvent` and nothing else; calls go to the one call
// channel as request frames; event listeners see the frame, never the IPC event (sender, ports).

import { describe, expect, it, vi } from 'vitest';
import type { EventFrame } from '../../app/contract';
import { CALL_CHANNEL, EVENT_CHANNEL, type DeepdeskBridge } from './bridge-api';
import { electron, FakeEvent } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
await import('./preload');

describe('the preload', () => {
  it('exposes only deepdeskBridge, with call and onEvent', () => {
    expect([...electron.contextBridge.exposed.keys()]).toEqual(['deepdeskBridge']);
    const bridge = electron.contextBridge.exposed.get('deepdeskBridge') as DeepdeskBridge;
    expect(Object.keys(bridge).sort()).toEqual(['call', 'onEvent']);
  });

  it('sends calls as request frames on the call channel', async () => {
    const bridge = electron.contextBridge.exposed.get('deepdeskBridge') as DeepdeskBridge;
    expect(await bridge.call('threads.list', {})).toEqual({ id: 0, result: { ok: true } });
    expect(electron.ipcRenderer.invocations).toEqual([[CALL_CHANNEL, [{ id: 0, method: 'threads.list', params: {} }]]]);
  });

  it('gives listeners the frame only, and unsubscribes', () => {
    const bridge = electron.contextBridge.exposed.get('deepdeskBridge') as DeepdeskBridge;
    const seen: unknown[][] = [];
    const off = bridge.onEvent((...args: unknown[]) => void seen.push(args));
    const frame: EventFrame = { event: 'threads.changed', payload: {} };
    electron.ipcRenderer.emit(EVENT_CHANNEL, new FakeEvent({ sender: 'ipc internals', ports: [] }), frame);
    expect(seen).toEqual([[frame]]);
    off();
    expect(electron.ipcRenderer.listenerCount(EVENT_CHANNEL)).toBe(0);
    electron.ipcRenderer.emit(EVENT_CHANNEL, new FakeEvent(), frame);
    expect(seen).toHaveLength(1);
  });
});
