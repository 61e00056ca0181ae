// write_todos (SPEC §3): the agent's visible plan. The whole list is replaced each call;
// two calls in one model turn are both refused (they would race to define the plan).

import { z } from 'zod';
import { defineTool, errorText, text, type AgentTool } from '../../tools/tool';
import type { Middleware } from '../middleware';
import type { Todo } from '../types';

const todoSchema = z.object({
  content: z.string({ error: 'each todo needs content text' }).min(1, 'todo content must not be empty'),
  status: z.enum(['pending', 'in_progress', 'completed'], { error: 'status must be pending, in_progress or completed' }),
});

const schema = z.object({ todos: z.array(todoSchema, { error: 'todos must be an array of {content, status}' }) });

export function todosMiddleware(): Middleware {
  const tool: AgentTool = defineTool({
    name: 'write_todos',
    description:
      'Replace your todo list, which the person sees: send every item each time (left-out ones are dropped), one in_progress while you work on it. Use it for tasks of three or more steps, at most once per turn.',
    schema,
    async run(args, ctx) {
      const run = ctx.run;
      if (run === undefined) return errorText('write_todos is only available to the agent');
      const todos: Todo[] = args.todos.map((t) => ({ content: t.content, status: t.status }));
      run.state.todos = todos;
      run.emit({ type: 'todos', todos });
      const counts = ['pending', 'in_progress', 'completed'].map((s) => `${todos.filter((t) => t.status === s).length} ${s.replace('_', ' ')}`);
      return text(`Updated todo list (${todos.length} items: ${counts.join(', ')}).`);
    },
  });
  return {
    name: 'todos',
    tools: () => [tool],
    // The list as it stands, once there is one (how to keep it is the tool's description).
    systemPrompt: (ctx) => {
      if (ctx.state.todos.length === 0) return undefined;
      return `## Your todo list\n${ctx.state.todos.map((t) => `- [${t.status}] ${t.content}`).join('\n')}`;
    },
    async wrapToolCall(_ctx, info, next) {
      if (info.call.name === 'write_todos' && info.turnCalls.filter((c) => c.name === 'write_todos').length > 1) {
        return errorText('write_todos was called more than once in the same turn; none of those calls was applied. Call it once with the complete list.');
      }
      return next(info.call);
    },
  };
}
