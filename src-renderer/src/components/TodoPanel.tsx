// The agent's current plan: the latest todo list, above the conversation (and part of its log).
// It is one line (progress and the current step) until the person opens it. Once the run
// has ended, no step is current: one left in progress reads `Not finished`.

import { useState } from 'react';
import type { Todo } from '../lib/agent-event';
import { Icon } from './Icon';
import { TodoList } from './TodoList';

export function TodoPanel({ todos, id, running }: { todos: readonly Todo[]; id?: string; running: boolean }): React.JSX.Element | null {
  const [open, setOpen] = useState(false);
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === 'completed').length;
  const current = running ? (todos.find((t) => t.status === 'in_progress') ?? todos.find((t) => t.status === 'pending')) : undefined;
  const unfinished = running ? undefined : todos.find((t) => t.status === 'in_progress');
  return (
    <section className={`todo-panel${open ? ' open' : ''}`} aria-label="Todos" id={id}>
      <button
        type="button"
        className="todo-panel-head"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
      >
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <Icon name="list" size={14} />
        {/* Named by what it shows (nothing but the verb is hidden): "Show Todos 1/2 done …". */}
        <span className="visually-hidden">{open ? 'Hide ' : 'Show '}</span>
        <span className="todo-panel-title">Todos</span>
        <span className="muted">
          {done}/{todos.length} done
        </span>
        {!open && current ? <span className="todo-panel-current">{current.content}</span> : null}
        {!open && unfinished ? <span className="todo-panel-current muted">Not finished: {unfinished.content}</span> : null}
      </button>
      {open ? <TodoList todos={todos} live={running} /> : null}
    </section>
  );
}
