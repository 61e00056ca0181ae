// The WebSocket side of the web host: request/response frames and event broadcast.

import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { EventFrame, ResponseFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { errorFrame, handleRequestFrame } from './handle-frame';
import { createOnceAnswers } from './once-answers';
import { SUBPROTOCOL } from './security';

/** A message with its attachments (contract/attachments.ts: 20 MB, as base64) or a 10 MB media file read for the viewer fits. */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;
/** A socket that falls this far behind is dropped; the client reconnects and refetches. */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface SocketHub {
  readonly server: WebSocketServer;
  close(): Promise<void>;
}

export function createSocketHub(api: WindowApi): SocketHub {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    // Select our protocol, never echo the token one back.
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const sockets = new Set<WebSocket>();
  const once = createOnceAnswers();

  const send = (socket: WebSocket, text: string): void => {
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount + Buffer.byteLength(text) > MAX_BUFFERED_BYTES) {
      // Said where the host's output goes: a dropped window is otherwise only a reconnect.
      process.stderr.write(`deepdesk: a window fell ${Math.round(socket.bufferedAmount / 1024)} KB behind and was disconnected (it reconnects and reloads)\n`);
      sockets.delete(socket);
      socket.terminate();
      return;
    }
    socket.send(text);
  };

  const reply = (socket: WebSocket, frame: ResponseFrame, request?: unknown): void => {
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (err) {
      text = JSON.stringify(errorFrame(frame.id, new Error(`the answer could not be encoded: ${err instanceof Error ? err.message : String(err)}`)));
    }
    if (request !== undefined) once.sent(request, text.length);
    send(socket, text);
  };

  const onMessage = (socket: WebSocket, data: RawData, isBinary: boolean): void => {
    if (isBinary) {
      reply(socket, { id: -1, error: { message: 'expected a JSON text frame', code: 'bad_request' } });
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(rawText(data));
    } catch {
      reply(socket, { id: -1, error: { message: 'malformed JSON', code: 'bad_request' } });
      return;
    }
    void once.answer(frame, () => handleRequestFrame(api, frame)).then((response) => reply(socket, response, frame));
  };

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('message', (data, isBinary) => onMessage(socket, data, isBinary));
    socket.on('close', () => sockets.delete(socket));
    // Oversized frames and protocol errors close the socket; nothing else to do.
    socket.on('error', () => sockets.delete(socket));
  });

  const unsubscribe = api.onEvent((frame: EventFrame) => {
    if (sockets.size === 0) return;
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch {
      return;
    }
    for (const socket of [...sockets]) send(socket, text);
  });

  return {
    server,
    close: async () => {
      unsubscribe();
      for (const socket of sockets) socket.close(1001, 'server shutting down');
      const closing = [...sockets].map(
        (socket) =>
          new Promise<void>((done) => {
            if (socket.readyState === WebSocket.CLOSED) return done();
            const timer = setTimeout(() => {
              socket.terminate();
              done();
            }, 1000);
            socket.once('close', () => {
              clearTimeout(timer);
              done();
            });
          }),
      );
      await Promise.all(closing);
      sockets.clear();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
