// The window's only door to the main process. Built as CommonJS for the sandbox and kept
// dependency-free (bridge-api has constants and types only): the frames are validated on
// both sides of this bridge, not here.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { EventFrame, ResponseFrame } from '../../app/contract';
import { CALL_CHANNEL, EVENT_CHANNEL, type DeepdeskBridge } from './bridge-api';

const bridge: DeepdeskBridge = {
  call: (method: string, params: unknown) => ipcRenderer.invoke(CALL_CHANNEL, { id: 0, method, params }) as Promise<ResponseFrame>,
  onEvent: (listener: (frame: EventFrame) => void) => {
    // The IPC event object (sender, ports) never reaches the page.
    const handler = (_event: IpcRendererEvent, frame: EventFrame): void => listener(frame);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  },
};

contextBridge.exposeInMainWorld('deepdeskBridge', bridge);
