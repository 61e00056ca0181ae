// A todo list (the agent's, or a subagent's inside its task card).

import type { Todo } from '../lib/agent-event';
import { Icon } from './Icon';

const STATUS_LABEL = { pending: 'pending', in_progress: 'in progress', completed: 'done' } as const;

export function TodoList({ todos }: { todos: readonly Todo[] }): React.JSX.Element {
  return (
    <ul className="todo-list" tabIndex={0}>
      {todos.map((todo, i) => (
        <li key={i} className={`todo todo-${todo.status}`}>
          <span className="todo-mark" aria-hidden="true">
            {todo.status === 'completed' ? <Icon name="check" size={14} /> : todo.status === 'in_progress' ? <Icon name="dot" size={14} /> : <Icon name="circle" size={14} />}
          </span>
          <span className="todo-text">{todo.content}</span>
          <span className="visually-hidden"> ({STATUS_LABEL[todo.status]})</span>
        </li>
      ))}
    </ul>
  );
}
