// A todo list (the agent's, or a subagent's inside its task card). Once its run has ended
// (`live` false), a step left in progress is shown as not finished, not as going on.

import type { Todo } from '../lib/agent-event';
import { Icon } from './Icon';

const STATUS_LABEL = { pending: 'pending', in_progress: 'in progress', completed: 'done', unfinished: 'not finished' } as const;

/** A todo's status as shown: `in_progress` of a run that ended is `unfinished`. */
function shownStatus(todo: Todo, live: boolean): keyof typeof STATUS_LABEL {
  return todo.status === 'in_progress' && !live ? 'unfinished' : todo.status;
}

export function TodoList({ todos, live = true }: { todos: readonly Todo[]; live?: boolean }): React.JSX.Element {
  return (
    <ul className="todo-list" tabIndex={0}>
      {todos.map((todo, i) => {
        const status = shownStatus(todo, live);
        return (
          <li key={i} className={`todo todo-${status}`}>
            <span className="todo-mark" aria-hidden="true">
              {status === 'completed' ? <Icon name="check" size={14} /> : status === 'in_progress' ? <Icon name="dot" size={14} /> : <Icon name="circle" size={14} />}
            </span>
            <span className="todo-text">{todo.content}</span>
            <span className="visually-hidden"> ({STATUS_LABEL[status]})</span>
          </li>
        );
      })}
    </ul>
  );
}
