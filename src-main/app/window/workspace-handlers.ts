// The folder's files, the memories and the terminals, as the window shows them (SPEC §6).

import { SHELL_TERMINAL_ID } from '../terminal/terminal-service';
import { ok, type HandlersFor, type WindowServices } from './handlers';

export function workspaceHandlers(w: WindowServices): HandlersFor<'files.'> & HandlersFor<'memories.'> & HandlersFor<'terminal.'> {
  const { workspace, memories, terminals } = w;
  return {
    'files.list': ({ path }) => workspace.list(path),
    'files.read': ({ path }) => workspace.read(path),
    'files.search': ({ query, limit }) => workspace.search(query, limit),
    'files.exists': ({ paths }) => workspace.exists(paths),

    'memories.list': (params) => memories.list(params),
    'memories.read': ({ path }) => memories.read(path),
    'memories.write': async ({ path, text }) => (await memories.write(path, text), ok),
    'memories.delete': async ({ path }) => (await memories.delete(path), ok),
    'memories.history': async ({ path }) => memories.history(path),
    'memories.restore': async ({ path, version }) => (await memories.restore(path, version), ok),
    'memories.approve': async ({ path, version, text }) => (await memories.approve(path, { ...(version !== undefined ? { version } : {}), ...(text !== undefined ? { text } : {}) }), ok),
    'memories.reject': async ({ path, version }) => (memories.reject(path, version), ok),
    'memories.move': ({ path, to }) => memories.move(path, to),
    'memories.used': async ({ threadId }) => memories.used(threadId),

    'terminal.list': async ({ threadId }) => terminals.list(threadId),
    'terminal.attach': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => terminals.attach(threadId, terminalId),
    'terminal.detach': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => (terminals.detach(threadId, terminalId), ok),
    'terminal.input': async ({ threadId, terminalId = SHELL_TERMINAL_ID, data }) => (terminals.input(threadId, terminalId, data), ok),
    'terminal.resize': async ({ threadId, terminalId = SHELL_TERMINAL_ID, cols, rows }) => (terminals.resize(threadId, terminalId, cols, rows), ok),
    'terminal.ack': async ({ threadId, terminalId = SHELL_TERMINAL_ID, bytes }) => (terminals.ack(threadId, terminalId, bytes), ok),
    'terminal.close': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => (await terminals.closeTerminal(threadId, terminalId), ok),
  };
}
