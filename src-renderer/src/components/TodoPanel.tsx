// The agent's current plan: the latest todo list, pinned at the top of the conversation.

import { useState } from 'react';
import type { Todo } from '../lib/agent-event';
import { Icon } from './Icon';
import { TodoList } from './TodoList';

export function TodoPanel({ todos }: { todos: readonly Todo[] }): React.JSX.Element | null {
  const [open, setOpen] = useState(true);
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === 'completed').length;
  const current = todos.find((t) => t.status === 'in_progress');
  return (
    <section className="todo-panel" aria-label="Todos">
      <button type="button" className="todo-panel-head" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <Icon name="list" size={14} />
        <span className="todo-panel-title">Todos</span>
        <span className="muted">
          {done}/{todos.length} done
        </span>
        {!open && current ? <span className="todo-panel-current">{current.content}</span> : null}
      </button>
      {open ? <TodoList todos={todos} /> : null}
    </section>
  );
}
