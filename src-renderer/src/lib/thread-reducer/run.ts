// A run as it goes: the model's answer as it streams, what the run reports meanwhile (todos,
// usage and context, the goal, a provider retry waited out), and how it ends (done, an error).

import { goalJsonSchema } from '../../../../src-main/app/contract';
import { num, str, todosOf, usageOf } from '../agent-event';
import type { ConvItem } from '../thread-reducer';
import { finishStreaming, lastIndexInScope, push, replaceAt, topLevel, withParent, type EventFamily } from './items';

export const runEvents = {
  text(state, event, parent) {
    const text = str(event.text);
    if (text === '') return state;
    const seen = { ...state.textSeen, [parent ?? '']: true };
    const index = lastIndexInScope(state.items, parent);
    const last = index >= 0 ? state.items[index] : undefined;
    if (last?.kind === 'assistant' && last.streaming) {
      return { ...replaceAt(state, index, { ...last, text: last.text + text }), textSeen: seen };
    }
    return { ...push(state, withParent({ kind: 'assistant', key: '', text, streaming: true }, parent)), textSeen: seen };
  },
  retry: topLevel((state, event) => ({
    ...state,
    retry: { attempt: num(event.attempt, 2), maxAttempts: num(event.maxAttempts, 0), at: Date.now() + num(event.delayMs), message: str(event.message) },
  })),
  error: (state, event, parent) => {
    const error: ConvItem = {
      kind: 'error',
      key: '',
      message: str(event.message, 'Unknown error'),
      ...(parent === undefined && event.refused !== true ? { retryable: true } : {}),
      // The app says when the fix is in Settings (a server not reached, a refused key); a 401 or 403 always is,
      // and so is a budget's stop (budgets and prices are set there).
      ...(event.settings === true || event.budget === true || event.status === 401 || event.status === 403 ? { settings: true } : {}),
      ...(event.budget === true ? { budget: true } : {}),
      ...(typeof event.detail === 'string' && event.detail !== '' ? { detail: event.detail } : {}),
    };
    return push(state, withParent(error, parent));
  },
  done(state, event, parent) {
    const scope = parent ?? '';
    let next = finishStreaming(state, parent, parent === undefined);
    const text = str(event.text);
    // Nothing streamed in this window — but a thread loaded mid-run (its host's check waiting) may already show the answer.
    if (!next.textSeen[scope] && text.trim() !== '' && !answeredSinceAsked(next.items, parent, text)) {
      next = push(next, withParent({ kind: 'assistant', key: '', text, streaming: false }, parent));
    }
    next = { ...next, textSeen: { ...next.textSeen, [scope]: false } };
    if (parent !== undefined) return next;
    const reason = str(event.reason);
    // A stop is told by the note the app keeps in the thread (a reload shows it too).
    if (reason === 'max_steps') next = push(next, { kind: 'notice', key: '', text: 'Stopped: the step limit was reached.' });
    if (event.usage !== undefined) next = { ...next, lastRun: usageOf(event.usage) };
    // A budget's stop: its `error` event has said so in one line (with Open settings); only if none came, it is said here, once.
    const said = next.items.findLast((i) => i.parent === undefined);
    if (reason === 'budget' && !(said?.kind === 'error' && said.budget === true)) {
      next = push(next, { kind: 'error', key: '', message: 'Stopped: the budget was reached.', settings: true, budget: true });
    }
    return { ...next, running: false, paused: null };
  },
  todos(state, event, parent) {
    const todos = todosOf(event.todos);
    return parent === undefined ? { ...state, todos } : { ...state, subTodos: { ...state.subTodos, [parent]: todos } };
  },
  usage: topLevel((state, event) => ({
    ...state,
    usage: usageOf(event.total ?? event.usage),
    contextTokens: num(event.contextTokens, state.contextTokens),
    contextWindow: num(event.contextWindow, state.contextWindow),
  })),
  // The thread header shows the goal's state (SPEC §21).
  goal: topLevel((state, event) => {
    const goal = goalJsonSchema.safeParse(event.goal);
    return goal.success ? { ...state, goal: goal.data } : state;
  }),
  // Any call of the run (a subagent's too) waiting at a cap pauses the thread; going on clears it.
  paused: (state, event) => ({
    ...state,
    paused:
      typeof event.line === 'string'
        ? { line: event.line, ...(typeof event.scope === 'string' ? { scope: event.scope } : {}), ...(typeof event.key === 'string' ? { key: event.key } : {}), ...(typeof event.cap === 'number' ? { cap: event.cap } : {}) }
        : null,
  }),
  // Told elsewhere: the Changes region follows checkpoints, the session reloads a rewound thread.
  checkpoint: (state) => state,
  rewound: (state) => state,
} satisfies EventFamily;

/** Whether this answer is shown in the scope already, after the person's latest message. */
function answeredSinceAsked(items: readonly ConvItem[], parent: string | undefined, text: string): boolean {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.parent !== parent) continue;
    if (item.kind === 'user') return false;
    if (item.kind === 'assistant' && item.text.trim() === text.trim()) return true;
  }
  return false;
}
